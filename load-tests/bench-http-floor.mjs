// npm run bench:floor — the floor under bench:api on this machine: the same load generator
// (same client pool, concurrency, request mix and form bodies) against a Node HTTP server that
// does no work at all — it reads the body and answers a fixed order envelope. No database, no
// engine, no auth. Whatever bench:api reaches is below this line; the gap is the exchange's work.
// Last line: `floor: <N> orders/s p99 <L> ms (<R> requests/s)`.
//
// BENCH_RATE=N: the same server under bench:api's open loop (N orders/s offered, 30% cancels on
// top, latency from each request's scheduled time, the first BENCH_WARMUP seconds left out): what
// the transport and the generator alone cost at that rate, beside `BENCH_RATE=N npm run bench:api`.
// Last line `open floor: <N> orders/s p99 <L> ms (<R> offered)`; it is not saved as F.
//
// BENCH_FLOOR_ANSWER=exchange: the same do-nothing server, but its answers carry what the
// exchange's order answers must (the API's security headers and request id, set by the backend's
// own functions, and an order-shaped envelope of the same size): how much of the gap to F is the
// answer's own weight. Last line `answer floor: <N> orders/s …`; it is not saved as F.
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadSlots, openLoop } from './lib/open-loop.mjs';
import { cpuMsPer, cpuReport, cpuTimes, loadClient, log, machineShare, measuredWindow, percentile, saveFloor } from './lib/stack.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CANCEL_SHARE = Number(process.env.BENCH_CANCEL_SHARE ?? 0.3);
const RATE = Number(process.env.BENCH_RATE ?? 0);
/** Closed loop: its callers; open loop: its slots (lib/open-loop.mjs loadSlots). */
const CONCURRENCY = loadSlots(RATE, CANCEL_SHARE);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);

const EXCHANGE_ANSWER = process.env.BENCH_FLOOR_ANSWER === 'exchange';

if (process.argv[2] === 'server') {
  const http = await import('node:http');
  // The backend's own header functions (npm run build first), so the answer is the exchange's.
  const require = createRequire(import.meta.url);
  const headers = EXCHANGE_ANSWER
    ? [require('../backend/dist/infra/http/security-headers.js'), require('../backend/dist/infra/logging/logging.js')]
    : undefined;
  const now = () => new Date().toISOString();
  let id = 0;
  const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      const data =
        req.method === 'POST'
          ? { order_id: String(++id), status: 'waiting', price: form.get('price'), quantity: form.get('quantity') }
          : { order_id: form.get('order_id'), status: 'cancelled' };
      if (headers) {
        headers[0].setSecurityHeaders(req, res, () => false);
        headers[1].requestId(req, res);
      }
      const body = JSON.stringify(
        headers
          ? {
              type: 'ok',
              code: 1,
              message: 'Order placed',
              // The fields of an order answer (docs/api.md), as a literal: what the exchange serializes.
              data: {
                order_id: data.order_id,
                symbol: 'BTC/USDT',
                side: 'buy',
                type: 'limit',
                price: data.price ?? null,
                quantity: data.quantity ?? null,
                amount: null,
                filled_qty: '0',
                filled_amount: '0',
                avg_price: null,
                fee: '0',
                fee_currency: 'BTC',
                status: data.status,
                client_order_id: null,
                created_at: now(),
                updated_at: now(),
              },
            }
          : { code: 1, message: 'ok', data },
      );
      res.writeHead(200, { 'content-type': headers ? 'application/json; charset=utf-8' : 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else {
  const child = fork(fileURLToPath(import.meta.url), ['server'], { stdio: 'inherit' });
  const port = await new Promise((resolve) => child.once('message', resolve));
  try {
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const client = loadClient(`http://127.0.0.1:${port}`, CONCURRENCY);
    const pids = { server: [child.pid], generator: [process.pid] };
    /** One request of bench:api's mix: a cancel of one of `open` (30 %), else a new order; an order's latency (from `t0`) goes to `latencies`. */
    const request = async (open, latencies, t0 = performance.now()) => {
      if (open.length && rand() < CANCEL_SHARE) {
        await client.call('PUT', 'coin/trade', { order_id: open.splice(Math.floor(rand() * open.length), 1)[0] }, 'token');
        return;
      }
      const price = (60000 * (1 + (rand() - 0.5) * 0.01)).toFixed(2);
      const r = await client.call('POST', 'coin/trade', { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price, quantity: '0.001' }, 'token');
      latencies?.push(performance.now() - t0);
      if (rand() < 0.6) open.push(r.data.order_id);
    };
    if (RATE > 0) await openFloor(client, pids, request);
    else await closedFloor(client, pids, request);
  } finally {
    child.kill();
  }
}

/** The closed loop (F): CONCURRENCY clients, each sending its next request when the last is answered. */
async function closedFloor(client, pids, request) {
  const latencies = [];
  let requests = 0;
  const cpuBefore = cpuTimes(pids);
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  async function worker() {
    const open = [];
    while (Date.now() < deadline) {
      requests++;
      await request(open, latencies);
    }
  }
  log(`floor: ${CONCURRENCY} concurrent clients for ${SECONDS} s against a do-nothing server${EXCHANGE_ANSWER ? " answering with the exchange's headers and order answer" : ''}`);
  await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
  const elapsed = (Date.now() - started) / 1000;
  const cpuAfter = cpuTimes(pids);
  console.log(`cores used (of 2): ${cpuReport(cpuBefore, cpuAfter, elapsed, latencies.length)}`);
  await client.close();
  latencies.sort((a, b) => a - b);
  const rate = Math.round(latencies.length / elapsed);
  // bench:api subtracts this server's CPU per order (the bare HTTP cost) from the exchange's, and counts the stack's in this generator's.
  if (!EXCHANGE_ANSWER) saveFloor(
      rate,
      cpuMsPer(cpuBefore, cpuAfter, ['server'], latencies.length),
      cpuMsPer(cpuBefore, cpuAfter, ['generator'], latencies.length),
      machineShare(cpuBefore, cpuAfter, 'steal'),
    );
  console.log(`${EXCHANGE_ANSWER ? 'answer floor' : 'floor'}: ${rate} orders/s p99 ${percentile(latencies, 99).toFixed(1)} ms (${Math.round(requests / elapsed)} requests/s)`);
}

/** BENCH_RATE: bench:api's open loop (same mix) against the do-nothing server; CPU and latencies in the window after the warm-up. */
async function openFloor(client, pids, request) {
  const latencies = [];
  const open = [];
  let cpuBefore;
  const win = measuredWindow(WARMUP, SECONDS, () => (cpuBefore = cpuTimes(pids)));
  log(`open floor: ${RATE} orders/s offered (+${Math.round((RATE * CANCEL_SHARE) / (1 - CANCEL_SHARE))} cancels/s) for ${WARMUP} + ${SECONDS} s against a do-nothing server`);
  const { notSent } = await openLoop({
    perSecond: RATE / (1 - CANCEL_SHARE),
    concurrency: CONCURRENCY,
    deadline: win.deadline,
    recording: () => win.recording,
    step: (i, scheduled) => request(open, win.recording ? latencies : undefined, scheduled),
  });
  await win.ready;
  const elapsed = win.elapsed();
  const cpuAfter = cpuTimes(pids);
  await client.close();
  console.log(`cores used (of 2): ${cpuReport(cpuBefore, cpuAfter, elapsed, latencies.length)}${notSent ? `; not sent (no free slot): ${notSent}` : ''}`);
  latencies.sort((a, b) => a - b);
  console.log(`open floor: ${Math.round(latencies.length / elapsed)} orders/s p99 ${percentile(latencies, 99).toFixed(1)} ms (${RATE} offered)`);
}
