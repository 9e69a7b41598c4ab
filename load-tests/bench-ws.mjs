// npm run bench:ws — many Socket.IO clients subscribed to tickers, one depth and one trades topic
// while the market simulator trades. Per-client message rate, and delivery latency measured from
// the server's send timestamp (same machine, same clock). Last line: `clients: <C> rate: <R> Hz p99 <L> ms`.
import { createRequire } from 'node:module';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, percentile, startStack } from './lib/stack.mjs';

const require = createRequire(join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'package.json'));
const { io } = require('socket.io-client');

const CLIENTS = Number(process.env.BENCH_WS_CLIENTS ?? 5000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WAVE = 250;
const TOPICS = ['tickers', 'depth:BTC/USDT', 'trades:BTC/USDT'];

const stack = await startStack({ simulator: true });
const sockets = [];
try {
  log(`connecting ${CLIENTS} clients…`);
  for (let i = 0; i < CLIENTS; i += WAVE) {
    const wave = [];
    for (let j = i; j < Math.min(CLIENTS, i + WAVE); j++) {
      const s = io(stack.apiUrl, { path: '/socket.io', transports: ['websocket'], reconnection: false, forceNew: true });
      sockets.push(s);
      wave.push(
        new Promise((ok, fail) => {
          s.once('connect', () => s.emit('subscribe', TOPICS, (r) => (Array.isArray(r) ? ok() : fail(new Error(JSON.stringify(r))))));
          s.once('connect_error', fail);
        }),
      );
    }
    await Promise.all(wave);
  }
  log(`all connected and subscribed; measuring for ${SECONDS} s`);
  let messages = 0;
  const latencies = [];
  let measuring = true;
  const onMessage = (m) => {
    if (!measuring) return;
    messages++;
    // Sample latency on every 10th message to keep the collector light.
    if (messages % 10 === 0) latencies.push(Date.now() - m.ts);
  };
  for (const s of sockets) for (const e of ['tickers', 'depth', 'trades']) s.on(e, onMessage);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  measuring = false;
  latencies.sort((a, b) => a - b);
  const rate = messages / SECONDS / CLIENTS;
  const p99 = percentile(latencies, 99);
  console.log(`messages: ${messages} to ${CLIENTS} clients in ${SECONDS} s; latency ms p50 ${percentile(latencies, 50)} p90 ${percentile(latencies, 90)} p99 ${p99} max ${latencies[latencies.length - 1] ?? 0}`);
  console.log(`clients: ${CLIENTS} rate: ${rate.toFixed(2)} Hz p99 ${p99} ms`);
} finally {
  for (const s of sockets) s.disconnect();
  await stack.stop();
}
