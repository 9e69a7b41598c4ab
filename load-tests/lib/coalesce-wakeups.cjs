// Diagnosis only (docs/performance.md, forty-seventh sitting): user-space wake-up coalescing for the
// server's main thread. Every millisecond, when the event loop was busy less than COALESCE_ELU of the
// last one (default 0.6), the thread sleeps COALESCE_US microseconds (Atomics.wait: off the CPU), so
// the requests and answers that arrive meanwhile are read in one wake-up instead of one each.
// Writes how often it slept to COALESCE_STATS (default /tmp/kestrel-coalesce-stats) every 5 s.
//   COALESCE_US=500 BENCH_NODE_ARGS="-r ./load-tests/lib/coalesce-wakeups.cjs" BENCH_RATE=3000 npm run bench:api
const { isMainThread } = require('node:worker_threads');
const { writeFileSync } = require('node:fs');

if (isMainThread && Number(process.env.COALESCE_US) > 0) {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const sleepMs = Number(process.env.COALESCE_US) / 1000;
  const limit = Number(process.env.COALESCE_ELU ?? 0.6);
  const stats = process.env.COALESCE_STATS ?? '/tmp/kestrel-coalesce-stats';
  let last = performance.eventLoopUtilization();
  let sleptMs = 0;
  let slept = 0;
  let ticks = 0;
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const d = performance.eventLoopUtilization(now, last);
    last = now;
    ticks++;
    // The loop's own work in that millisecond: its active time less the sleep it did itself.
    const busy = (d.active - sleptMs) / (d.active + d.idle);
    sleptMs = 0;
    if (busy < limit) {
      const t = performance.now();
      Atomics.wait(cell, 0, 0, sleepMs);
      sleptMs = performance.now() - t;
      slept++;
    }
  }, 1).unref();
  setInterval(() => writeFileSync(stats, `slept in ${slept} of ${ticks} milliseconds\n`), 5000).unref();
}
