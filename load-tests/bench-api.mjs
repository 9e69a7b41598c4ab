// npm run bench:api — many concurrent users placing and cancelling spot orders against the API
// on loopback. An order counts when the API acknowledged it (code 1): journaled in PostgreSQL,
// matched and settled. Last line: `orders: <N>/s p99 <L> ms`.
import { cpuReport, cpuTimes, loadClient, log, makeTraders, percentile, startStack } from './lib/stack.mjs';

const USERS = Number(process.env.BENCH_USERS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 400);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CANCEL_SHARE = Number(process.env.BENCH_CANCEL_SHARE ?? 0.3);

const stack = await startStack();
try {
  log(`making ${USERS} funded traders…`);
  const traders = await makeTraders(stack, USERS, { 3: '100000000', 1: '10000' });
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const latencies = [];
  const errors = new Map();
  let cancels = 0;
  const deadline = Date.now() + SECONDS * 1000;
  const started = Date.now();
  const client = loadClient(stack.apiUrl, CONCURRENCY);
  const pids = { server: stack.pids ?? [], generator: [process.pid] };
  const cpuBefore = cpuTimes(pids);

  async function worker(w) {
    const trader = traders[w % traders.length];
    const open = [];
    while (Date.now() < deadline) {
      if (open.length && rand() < CANCEL_SHARE) {
        const id = open.splice(Math.floor(rand() * open.length), 1)[0];
        const r = await client.call('PUT', 'coin/trade', { order_id: id }, trader.token);
        if (r.code === 1) cancels++;
        continue;
      }
      const side = rand() < 0.5 ? 'buy' : 'sell';
      // Around 60,000 with a ±0.5% spread of limit prices: some rest, some cross and trade.
      const price = (60000 * (1 + (rand() - 0.5) * 0.01)).toFixed(2);
      const quantity = (0.001 + Math.floor(rand() * 50) * 0.0001).toFixed(4);
      const t0 = performance.now();
      const r = await client.call('POST', 'coin/trade', { symbol: 'BTC/USDT', side, type: 'limit', price, quantity }, trader.token);
      const ms = performance.now() - t0;
      if (r.code === 1) {
        latencies.push(ms);
        if (r.data.status === 'waiting') open.push(r.data.order_id);
      } else errors.set(r.code, (errors.get(r.code) ?? 0) + 1);
    }
  }

  log(`load: ${CONCURRENCY} concurrent clients for ${SECONDS} s`);
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const elapsed = (Date.now() - started) / 1000;
  const cpu = cpuReport(cpuBefore, cpuTimes(pids), elapsed);
  await client.close();
  latencies.sort((a, b) => a - b);
  const rate = Math.round(latencies.length / elapsed);
  const p50 = percentile(latencies, 50).toFixed(1);
  const p99 = percentile(latencies, 99).toFixed(1);
  console.log(`acknowledged orders: ${latencies.length} in ${elapsed.toFixed(1)} s; cancels: ${cancels}; refused: ${JSON.stringify(Object.fromEntries(errors))}`);
  console.log(`cores used (of 2): ${cpu}`);
  console.log(`latency ms: p50 ${p50}  p90 ${percentile(latencies, 90).toFixed(1)}  p99 ${p99}  max ${(latencies[latencies.length - 1] ?? 0).toFixed(1)}`);
  console.log(`orders: ${rate}/s p99 ${p99} ms`);
} finally {
  await stack.stop();
}
