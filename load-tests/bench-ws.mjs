// npm run bench:ws — many Socket.IO clients subscribed to tickers, one depth and one trades topic
// while the market simulator trades. Per-client message rate, and delivery latency measured from
// the server's send timestamp (same machine, same clock). Last line: `clients: <C> rate: <R> Hz p99 <L> ms`.
//
// The clients are spread over BENCH_WS_THREADS worker threads (default 4): a real client parses on
// its own machine, so the load generator's own queueing (every client of a thread waits for that
// thread's event loop) is measurement error. Measured on 2 cores: 2 threads of 2,500 clients each
// gave split-stack p99s of 170–239 ms, 4 threads of 1,250 152–168 ms, for the same server CPU per
// message (docs/performance.md).
//
// BENCH_API_PROCESSES=N runs the split roles instead of one process (an engine and N api processes
// joined by the Socket.IO Redis adapter, lib/stack.mjs startSplitStack) and spreads the clients
// over the api processes. Both modes print the messages delivered per CPU-second of the server
// processes (Redis included when split), so the adapter's cost is visible.
import { createRequire } from 'node:module';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const CLIENTS = Number(process.env.BENCH_WS_CLIENTS ?? 5000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const THREADS = Math.max(1, Number(process.env.BENCH_WS_THREADS ?? 4));
const WAVE = 250;
const TOPICS = ['tickers', 'depth:BTC/USDT', 'trades:BTC/USDT'];
// The clients take their market data as the web app does (`auth.feed = 'batch'`: one `feed` event per
// conflation cycle); BENCH_WS_FEED=topics takes one event per topic instead (clients that do not ask).
const FEED = process.env.BENCH_WS_FEED === 'topics' ? 'topics' : 'batch';
const AUTH = FEED === 'batch' ? { feed: 'batch' } : {};

if (isMainThread) await main();
else await clients(workerData);

async function main() {
  const { cpuReport, cpuTimes, log, percentile, startStack } = await import('./lib/stack.mjs');
  const stack = await startStack({ simulator: true });
  const workers = [];
  try {
    log(`connecting ${CLIENTS} clients from ${THREADS} threads (market data: ${FEED === 'batch' ? 'one feed event per cycle' : 'one event per topic'})…`);
    for (let t = 0; t < THREADS; t++) {
      const count = Math.floor(CLIENTS / THREADS) + (t < CLIENTS % THREADS ? 1 : 0);
      workers.push(new Worker(fileURLToPath(import.meta.url), { workerData: { apiUrls: stack.apiUrls ?? [stack.apiUrl], offset: t, count } }));
    }
    const next = (w) => new Promise((ok, fail) => (w.once('message', ok), w.once('error', fail)));
    await Promise.all(workers.map(next)); // every client connected and subscribed
    log(`all connected and subscribed; measuring for ${SECONDS} s`);
    const pids = { ...(stack.pidGroups ?? { server: stack.pids ?? [] }), generator: [process.pid] };
    const cpuBefore = cpuTimes(pids);
    const results = workers.map(next);
    for (const w of workers) w.postMessage({ seconds: SECONDS });
    // One more client in a process of its own (the last api process): the server's delivery latency
    // without the load generator's own queueing, which shares the machine's cores.
    const probe = probeLatency((stack.apiUrls ?? [stack.apiUrl]).at(-1), SECONDS);
    const done = await Promise.all(results);
    const probed = await probe;
    const cpuAfter = cpuTimes(pids);
    const cpu = cpuReport(cpuBefore, cpuAfter, SECONDS);
    // CPU-seconds of the server side: the server processes, plus Redis when the adapter carries the messages.
    const serverGroups = stack.apiUrls ? ['engine', 'api', 'redis'] : ['server'];
    let serverTicks = 0;
    for (const [pid, { group, used }] of cpuAfter) if (serverGroups.includes(group)) serverTicks += used - (cpuBefore.get(pid)?.used ?? 0);
    const messages = done.reduce((n, r) => n + r.messages, 0);
    const frames = done.reduce((n, r) => n + r.frames, 0);
    const latencies = done.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const rate = messages / SECONDS / CLIENTS;
    const p99 = percentile(latencies, 99);
    console.log(`messages: ${messages} in ${frames} Socket.IO events (${FEED}) to ${CLIENTS} clients in ${SECONDS} s; latency ms p50 ${percentile(latencies, 50)} p90 ${percentile(latencies, 90)} p99 ${p99} max ${latencies[latencies.length - 1] ?? 0}`);
    console.log(`probe (one client in its own process): ${probed}`);
    console.log(`cores used (of 2): ${cpu}`);
    console.log(
      `mode: ${stack.apiUrls ? `engine + ${stack.apiUrls.length} api processes (Redis adapter)` : 'one process'}; ${(messages / Math.max(serverTicks / 100, 0.01)).toFixed(0)} messages per server CPU-second (${serverGroups.join(' + ')})`,
    );
    console.log(`clients: ${CLIENTS} rate: ${rate.toFixed(2)} Hz p99 ${p99} ms`);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    await stack.stop();
  }
}

/** Runs one subscribed client in a child process for `seconds`; its latency line. */
async function probeLatency(url, seconds) {
  const { spawn } = await import('node:child_process');
  const script = `
    const { io } = require('socket.io-client');
    const s = io(${JSON.stringify(url)}, { path: '/socket.io', transports: ['websocket'], reconnection: false, auth: ${JSON.stringify(AUTH)} });
    const lat = [];
    s.once('connect', () => s.emit('subscribe', ${JSON.stringify(TOPICS)}, () => {
      for (const e of ['tickers', 'depth', 'trades']) s.on(e, (m) => lat.push(Date.now() - m.ts));
      s.on('feed', (items) => { for (const [, m] of items) lat.push(Date.now() - m.ts); });
      setTimeout(() => {
        lat.sort((a, b) => a - b);
        const at = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0;
        process.stdout.write(lat.length + ' messages, latency ms p50 ' + at(0.5) + ' p99 ' + at(0.99) + ' max ' + (lat.at(-1) ?? 0));
        process.exit(0);
      }, ${seconds * 1000});
    }));`;
  const child = spawn(process.execPath, ['-e', script], { cwd: resolve(dirname(fileURLToPath(import.meta.url)), '..'), stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise((r) => child.once('exit', r));
  return out || 'no answer';
}

/** One thread's share of the clients: connect in waves, then count messages for the asked time. */
async function clients({ apiUrls, offset, count }) {
  const require = createRequire(join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'package.json'));
  const { io } = require('socket.io-client');
  const sockets = [];
  for (let i = 0; i < count; i += WAVE) {
    const wave = [];
    for (let j = i; j < Math.min(count, i + WAVE); j++) {
      const s = io(apiUrls[(offset + j) % apiUrls.length], { path: '/socket.io', transports: ['websocket'], reconnection: false, forceNew: true, auth: AUTH });
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
  let messages = 0;
  let frames = 0;
  const latencies = [];
  let measuring = false;
  const onMessage = (m) => {
    if (!measuring) return;
    messages++;
    // Sample latency on every 10th message to keep the collector light.
    if (messages % 10 === 0) latencies.push(Date.now() - m.ts);
  };
  // A message is a topic's message, whether it came alone or in a feed batch.
  const onFeed = (items) => {
    if (!measuring) return;
    frames++;
    for (const [, m] of items) onMessage(m);
  };
  for (const s of sockets) {
    for (const e of ['tickers', 'depth', 'trades']) s.on(e, (m) => (measuring && frames++, onMessage(m)));
    s.on('feed', onFeed);
  }
  parentPort.postMessage('ready');
  const { seconds } = await new Promise((ok) => parentPort.once('message', ok));
  measuring = true;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  for (const s of sockets) s.disconnect();
  parentPort.postMessage({ messages, frames, latencies });
}
