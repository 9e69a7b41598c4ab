/** The open loops' latency target (ms): p99 ≤ 50 ms (docs/performance.md, "Spot core v2"). */
const LATENCY_TARGET_MS = 50;

/**
 * How many requests a load keeps in flight at most: BENCH_CONCURRENCY when set. Else a closed loop
 * has 400 callers (bench:floor's F is measured with 400), and an open loop offering `ordersPerSecond`
 * (plus the cancels, `cancelShare` of its requests) has 400 slots or, at a higher rate, enough for
 * every request offered to stay in flight for the whole latency target (Little's law: rate × time).
 * With fewer, the generator turns orders away while the requests in flight are still within the
 * target on average, and leaves those orders, the slow ones at that moment, out of the latencies:
 * at 30,000 requests/s, 400 slots are 13 ms of load (docs/performance.md, seventy-fourth sitting).
 */
export function loadSlots(ordersPerSecond, cancelShare) {
  const set = process.env.BENCH_CONCURRENCY;
  if (set !== undefined) return Number(set);
  if (!(ordersPerSecond > 0)) return 400;
  return Math.max(400, Math.ceil((ordersPerSecond / (1 - cancelShare)) * (LATENCY_TARGET_MS / 1000)));
}

/**
 * Open-loop load (as k6's constant-arrival-rate executor): request i is due at origin + i / rate,
 * whatever the answers do, and its latency is counted from that scheduled time, so a stall is not
 * hidden by sending less (no coordinated omission). At most `concurrency` requests are in flight;
 * one due with no free slot is not sent and counted (`notSent`). `step(i, scheduled)` sends one.
 */
export async function openLoop({ perSecond, concurrency, deadline, step, recording, onError }) {
  const perMs = perSecond / 1000;
  const origin = performance.now();
  let issued = 0;
  let inFlight = 0;
  let notSent = 0;
  let drained;
  // One promise per request and no closure made for it: the generator shares a thread with what it
  // measures in bench:core, and its garbage is collected in the same pauses.
  const settled = () => {
    if (--inFlight === 0 && drained) drained();
  };
  // A request with no answer (a broken connection) is counted, never left unhandled.
  const failed = (err) => {
    try {
      onError?.(err);
    } finally {
      settled();
    }
  };
  while (performance.now() < deadline) {
    const due = Math.floor((performance.now() - origin) * perMs) + 1;
    for (; issued < due; issued++) {
      if (inFlight >= concurrency) {
        if (recording()) notSent++;
        continue;
      }
      inFlight++;
      step(issued, origin + issued / perMs).then(settled, failed);
    }
    // Sleep until the next request is due (timers have 1 ms granularity; lateness counts as latency).
    await new Promise((r) => setTimeout(r, Math.min(50, Math.max(1, Math.floor(origin + issued / perMs - performance.now())))));
  }
  if (inFlight > 0) await new Promise((r) => (drained = r));
  return { notSent };
}
