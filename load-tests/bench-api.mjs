// npm run bench:api — many concurrent users placing and cancelling spot orders against the API
// on loopback. An order counts when the API acknowledged it (code 1): journaled in PostgreSQL and
// matched. It prints the per-order budgets (CPU ms of the server, the generator and PostgreSQL;
// the server's beyond bare HTTP, against the last `npm run bench:floor`'s do-nothing server; the
// whole stack's in units of that floor's generator's CPU per order; rows written), the projector's
// lag and the trial balance after the run; over HTTP, also how many connections the generator's pool
// opened in the measured window (each one's first request waits to be accepted). Last line:
// `orders: <N>/s p99 <L> ms cancels p99 <C> ms`.
//
// Three ways in (BENCH_TRANSPORT):
// - `http` (default): POST / PUT /api/coin/trade, form-encoded, over one keep-alive pool;
// - `ws`: the same mix as `order` messages on Socket.IO (`{id, method: 'place'|'cancel', params}`,
//   answered through the ack with the same envelope), one connection per trader (BENCH_USERS of
//   them), websocket transport, the token in the handshake. Like the web app's socket, each one is
//   in its user's private room, so the server also pushes it its `orders` and `balance` messages:
//   that cost is part of what is measured. The generator speaks Socket.IO's wire format on the
//   `ws` package, as the k6 script does (pushes skipped by their prefix, not decoded, and counted
//   by event in the window: the `pushes received` line);
//   BENCH_WS_CLIENT=socket.io-client uses the library's client instead (more generator CPU per order);
// - `plain`: the same requests as text messages on the plain WebSocket endpoint `/api/coin/ws`
//   (the `ws` package), one connection per trader with its token in the upgrade's Authorization
//   header, each answer matched to its request by `id`. No pushes come on it (as over HTTP).
//
// Two ways to load:
// - closed loop (default): BENCH_CONCURRENCY clients each send their next request as soon as the
//   last one is answered — the most the stack answers at that concurrency;
// - open loop (BENCH_RATE=N): orders are offered at N a second on a fixed schedule, whatever the
//   answers do (as k6's constant-arrival-rate executor does), and each latency is counted from
//   the order's scheduled time, so a stall is not hidden by sending less (no coordinated
//   omission). At most BENCH_CONCURRENCY requests are in flight (unset: 400, or enough for the
//   requests offered to be in flight for the 50 ms latency target, lib/open-loop.mjs
//   loadSlots; over HTTP that many pooled connections); an order that finds no free slot is
//   not sent and is reported as `not sent`.
//
// BENCH_PERF=<file> also profiles the whole machine over the measured window with Linux `perf` and
// prints where its CPU went by role (lib/machine-profile.mjs); BENCH_SYSCALLS=1 counts the system
// calls each role makes per order in the same window (lib/syscall-count.mjs); BENCH_PG_WAL=1
// prints the window's write-ahead log per order, by kind (every kind) and by the table or index
// each record changes (lib/pg-wal.mjs, as bench:core does; it starts with a CHECKPOINT): its
// `Transaction/COMMIT` records are the commits per order.
//
// BENCH_API_PROCESSES=N runs the split roles (one engine, N api processes joined by Redis Streams,
// lib/stack.mjs startSplitStack) and spreads the HTTP connections over the api processes; the
// server's CPU is then the sum over all of them.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineProfile } from './lib/machine-profile.mjs';
import { loadSlots, openLoop } from './lib/open-loop.mjs';
import { countSyscalls } from './lib/syscall-count.mjs';
import { walText, walWindow } from './lib/pg-wal.mjs';
import { backpressureLine, beyondBareHttp, call, inFloorUnits, cpuGroups, cpuMsPer, cpuReport, cpuTimes, gcPausesText, loadClient, threadReport, threadTimes, log, logTrace, makeTraders, measuredWindow, orderMix, percentile, rowCounter, startStack } from './lib/stack.mjs';

const USERS = Number(process.env.BENCH_USERS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CANCEL_SHARE = Number(process.env.BENCH_CANCEL_SHARE ?? 0.3);
const RATE = Number(process.env.BENCH_RATE ?? 0);
/** Closed loop: its callers; open loop: its slots (lib/open-loop.mjs loadSlots). */
const CONCURRENCY = loadSlots(RATE, CANCEL_SHARE);
const TRACE = Boolean(process.env.BENCH_TRACE);
/** Load before the measured window (not counted): connections open, code is compiled, caches fill. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const TRANSPORT = process.env.BENCH_TRANSPORT ?? 'http';
/** The `ws` transport's client: Socket.IO's wire format on `ws` (as k6 speaks it), or the socket.io-client library. */
const WS_CLIENT = process.env.BENCH_WS_CLIENT ?? 'wire';
/** A socket order with no ack by then is counted as unanswered (as a broken HTTP connection is). */
const ACK_TIMEOUT_MS = 30_000;
if (!['http', 'ws', 'plain'].includes(TRANSPORT)) throw new Error(`BENCH_TRANSPORT is http, ws or plain, not ${TRANSPORT}`);
if (!['wire', 'socket.io-client'].includes(WS_CLIENT)) throw new Error(`BENCH_WS_CLIENT is wire or socket.io-client, not ${WS_CLIENT}`);

/** The project's packages (socket.io-client, ws), from the repository root. */
const require = createRequire(join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'package.json'));

/** A socket request for loadClient's `call('POST' | 'PUT', 'coin/trade', body)`: place or cancel. */
function socketRequest(method, path, body, id) {
  if (path !== 'coin/trade' || (method !== 'POST' && method !== 'PUT')) throw new Error(`no socket method for ${method} ${path}`);
  return { id, method: method === 'POST' ? 'place' : 'cancel', params: body };
}

/** One connection per trader (by token), each opened by `open(trader)` → [connection, ready promise]. */
async function connectAll(traders, open) {
  const sockets = new Map();
  await Promise.all(
    traders.map((t) => {
      const [socket, ready] = open(t);
      sockets.set(t.token, socket);
      return ready;
    }),
  );
  return sockets;
}

/**
 * The `ws` transport through socket.io-client (BENCH_WS_CLIENT=socket.io-client): loadClient's
 * interface, `call('POST' | 'PUT', 'coin/trade', body, token)` sends the order (or cancel) on that
 * trader's socket and resolves with the ack's envelope. The library's client costs the generator
 * more per order than the wire client below (a timer per emit, every push decoded).
 */
async function socketIoClient(apiUrl, traders) {
  const { io } = require('socket.io-client');
  const sockets = await connectAll(traders, (t) => {
    const s = io(apiUrl, { path: '/socket.io', transports: ['websocket'], auth: { token: t.token }, reconnection: false });
    return [s, new Promise((ok, fail) => s.once('connect', ok).once('connect_error', fail))];
  });
  let next = 0;
  return {
    call: (method, path, body, token) => sockets.get(token).timeout(ACK_TIMEOUT_MS).emitWithAck('order', socketRequest(method, path, body, ++next)),
    close: async () => {
      for (const s of sockets.values()) s.disconnect();
    },
  };
}

/**
 * A transport of requests matched to their answers by id over one `ws` connection per trader:
 * `wire.url`, `wire.headers(trader)`, `wire.encode(request)` → the text frame, and
 * `wire.read(ws, text, trader, ready)` → `[id, answer]` for an answer, or undefined for anything
 * else (the protocol's own frames, pushes); the connection is ready when it opens
 * (`wire.readyOnOpen`) or when `read` calls `ready.ok()`. A dropped connection fails what it still
 * owes at once (as a broken HTTP connection does); an answer missing after ACK_TIMEOUT_MS counts as
 * unanswered.
 */
async function wsClient(traders, wire) {
  const WebSocket = require('ws');
  const sockets = await connectAll(traders, (t) => {
    const ws = new WebSocket(wire.url, { headers: wire.headers(t), perMessageDeflate: false });
    ws.waiting = new Map(); // request id → {ok, fail, timer}
    const settle = (id) => {
      const w = ws.waiting.get(id);
      ws.waiting.delete(id);
      if (w) clearTimeout(w.timer);
      return w;
    };
    const ready = new Promise((ok, fail) => {
      ws.once('error', fail);
      if (wire.readyOnOpen) ws.once('open', ok);
      ws.on('message', (data) => {
        const answered = wire.read(ws, data.toString(), t, { ok, fail });
        if (answered) settle(answered[0])?.ok(answered[1]);
      });
    });
    ws.on('close', () => {
      for (const id of [...ws.waiting.keys()]) settle(id).fail(new Error('connection closed'));
    });
    ws.settle = settle;
    return [ws, ready];
  });
  let next = 0;
  return {
    call(method, path, body, token) {
      const request = socketRequest(method, path, body, ++next);
      const ws = sockets.get(token);
      if (ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error('connection closed'));
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => ws.settle(request.id)?.fail(new Error('no answer')), ACK_TIMEOUT_MS);
        timer.unref();
        ws.waiting.set(request.id, { ok, fail, timer });
        ws.send(wire.encode(request));
      });
    },
    close: async () => {
      for (const ws of sockets.values()) ws.close();
    },
  };
}

/**
 * The `plain` transport: each request a text message on the trader's connection to
 * `/api/coin/ws` (its token in the upgrade's Authorization header), answered by a message with its `id`.
 */
const plainWire = (apiUrl) => ({
  url: `${apiUrl.replace(/^http/, 'ws')}/api/coin/ws`,
  headers: (t) => ({ authorization: t.token }),
  readyOnOpen: true,
  encode: (request) => JSON.stringify(request),
  read(ws, text) {
    const answer = JSON.parse(text);
    return [answer.id, answer];
  },
});

/** The pushes the Socket.IO wire client skipped in the measured window, by event (`42["orders",…` → orders). */
const pushes = new Map();
let countingPushes = false;

/**
 * The `ws` transport on Socket.IO's wire format, as the k6 script (k6/order-socket.js) speaks it:
 * Engine.IO v4 + Socket.IO v5 text packets over the WebSocket transport. `0{…}` open → `40{token}`
 * connect with auth → `40{…}` accepted (`44{…}` refused); `42<n>["order",{…}]` → `43<n>[{…}]` the
 * ack; `2` ping → `3` pong. Pushes (`42[…]`: orders, balance) still arrive and are skipped by their
 * prefix, without being decoded, as a client that does not listen for them would (and counted by
 * event in the measured window, `pushes`).
 */
const socketIoWire = (apiUrl) => ({
  url: `${apiUrl.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`,
  headers: () => ({}),
  encode: (request) => `42${request.id}["order",${JSON.stringify(request)}]`,
  read(ws, text, t, ready) {
    if (text.startsWith('43')) {
      const bracket = text.indexOf('[');
      return [Number(text.slice(2, bracket)), JSON.parse(text.slice(bracket))[0]];
    }
    if (text.startsWith('42["')) {
      if (countingPushes) {
        const event = text.slice(4, text.indexOf('"', 4));
        pushes.set(event, (pushes.get(event) ?? 0) + 1);
      }
    } else if (text === '2') ws.send('3');
    else if (text.startsWith('40')) ready.ok();
    else if (text.startsWith('44')) ready.fail(new Error(`Socket.IO connect refused: ${text.slice(2)}`));
    else if (text.startsWith('0')) ws.send(`40${JSON.stringify({ token: t.token })}`);
    return undefined;
  },
});

const stack = await startStack();
try {
  log(`making ${USERS} funded traders…`);
  const traders = (await makeTraders(stack, USERS, { 3: '100000000', 1: '10000' })).map((t) => ({ ...t, open: [] }));
  const mix = orderMix(CANCEL_SHARE);
  const latencies = [];
  const cancelLatencies = [];
  /** Open loop: how late the generator sent each order (ms after its scheduled time; part of its latency). */
  const sentLate = [];
  const errors = new Map();
  let cancels = 0;
  let notSent = 0;
  const trace = [];
  const client =
    TRANSPORT === 'ws'
      ? WS_CLIENT === 'socket.io-client'
        ? await socketIoClient(stack.apiUrl, traders)
        : await wsClient(traders, socketIoWire(stack.apiUrl))
      : TRANSPORT === 'plain'
        ? await wsClient(traders, plainWire(stack.apiUrl))
        : loadClient(stack.apiUrls ?? stack.apiUrl, CONCURRENCY);
  log(
    `transport: ${TRANSPORT === 'http' ? `HTTP, a pool of ${CONCURRENCY} connections` : TRANSPORT === 'ws' ? `Socket.IO \`order\` messages, ${traders.length} sockets (${WS_CLIENT})` : `plain WebSocket /api/coin/ws, ${traders.length} connections`}`,
  );
  const pids = { ...(stack.pidGroups ?? { server: stack.pids ?? [] }), generator: [process.pid] };

  // The measured window starts after the warm-up: its CPU and rows are counted from there.
  let cpuBefore;
  const rows = process.env.API_URL ? undefined : await rowCounter(stack.databaseUrl);
  // Against a running stack (API_URL) the WAL has more than this load's records in it: not read.
  if (process.env.BENCH_PG_WAL === '1' && process.env.API_URL) log('BENCH_PG_WAL=1 is ignored with API_URL: the window would hold the running stack’s other writes too');
  const wal = process.env.BENCH_PG_WAL === '1' && !process.env.API_URL ? await walWindow({ databaseUrl: stack.databaseUrl }) : undefined;
  // One server process (not the split roles): its CPU by thread too.
  const serverPid = pids.server?.length === 1 ? pids.server[0] : undefined;
  let threadsBefore;
  log(`warm-up ${WARMUP} s`);
  // The operator's view of the sequencer (projector lag, journal writes) and the trial balance.
  const admin = process.env.API_URL
    ? undefined
    : (await call(stack.apiUrl, 'POST', 'admin/login', { email: stack.env.ADMIN_EMAIL, password: stack.env.ADMIN_PASSWORD })).data?.token;
  let profile;
  let syscalls;
  // The generator's own event-loop delay in the window, beside the server's (admin/engine): the backend's own LoopDelay.
  const { LoopDelay } = require('./backend/dist/modules/engine/samples.js');
  let generatorLoop;
  let openedBefore;
  const win = measuredWindow(WARMUP, SECONDS, async () => {
    generatorLoop = new LoopDelay();
    countingPushes = true;
    openedBefore = client.opened?.();
    await rows?.mark();
    await wal?.mark();
    cpuBefore = cpuTimes(pids);
    if (serverPid) threadsBefore = threadTimes(serverPid);
    if (process.env.BENCH_PERF) profile = machineProfile(process.env.BENCH_PERF, SECONDS, { server: serverPid, generator: process.pid });
    if (process.env.BENCH_SYSCALLS) syscalls = countSyscalls(SECONDS, { server: serverPid, generator: process.pid });
    if (admin) await call(stack.apiUrl, 'GET', 'admin/engine', undefined, admin); // the lag is counted from here
  });
  const deadline = win.deadline;

  /** One request of the mix for this trader: a cancel of one of its open orders, or a new limit order. */
  async function step(trader, scheduled) {
    const id = mix.cancelFrom(trader.open);
    if (id !== undefined) {
      const counted = win.recording;
      const t0 = scheduled ?? performance.now();
      const r = await client.call('PUT', 'coin/trade', { order_id: id }, trader.token);
      if (r.code === 1 && counted) {
        cancels++;
        cancelLatencies.push(performance.now() - t0);
      }
      return;
    }
    const order = mix.order();
    const t0 = scheduled ?? performance.now();
    const counted = win.recording;
    if (scheduled !== undefined && counted) sentLate.push(performance.now() - scheduled);
    const r = await client.call('POST', 'coin/trade', order, trader.token);
    const ms = performance.now() - t0;
    if (r.code === 1 && r.data.status === 'waiting') trader.open.push(r.data.order_id);
    if (!counted) return;
    if (r.code === 1) {
      latencies.push(ms);
      if (TRACE) trace.push([Math.floor((t0 - win.started) / 1000), ms]);
    } else errors.set(r.code, (errors.get(r.code) ?? 0) + 1);
  }

  if (RATE > 0) {
    log(
      `load: open loop, ${RATE} orders/s offered (+${Math.round((RATE * CANCEL_SHARE) / (1 - CANCEL_SHARE))} cancels/s), at most ${CONCURRENCY} in flight, ${SECONDS} s`,
    );
    // Requests (orders and the cancels that go with them) on a fixed schedule.
    ({ notSent } = await openLoop({
      perSecond: RATE / (1 - CANCEL_SHARE),
      concurrency: CONCURRENCY,
      deadline,
      recording: () => win.recording,
      step: (i, scheduled) => step(traders[i % traders.length], scheduled),
      onError: () => win.recording && errors.set('no answer', (errors.get('no answer') ?? 0) + 1),
    }));
    await win.ready;
  } else {
    log(`load: closed loop, ${CONCURRENCY} concurrent clients for ${SECONDS} s`);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        while (performance.now() < deadline) await step(traders[w % traders.length]);
      }),
    );
    await win.ready;
  }
  const elapsed = win.elapsed();
  countingPushes = false;
  const generatorDelay = generatorLoop.take();
  generatorLoop.stop();
  logTrace(trace);
  const cpuAfter = cpuTimes(pids);
  const cpu = cpuReport(cpuBefore, cpuAfter, elapsed, latencies.length);
  const threads = serverPid && latencies.length ? threadReport(serverPid, threadsBefore, threadTimes(serverPid), elapsed, latencies.length) : undefined;
  const opened = openedBefore === undefined ? undefined : client.opened() - openedBefore;
  // After the window's CPU is read: reading the WAL back costs PostgreSQL CPU of its own.
  const walStats = await wal?.stop();
  await client.close();
  latencies.sort((a, b) => a - b);
  const rate = Math.round(latencies.length / elapsed);
  const p50 = percentile(latencies, 50).toFixed(1);
  const p99 = percentile(latencies, 99).toFixed(1);
  console.log(
    `acknowledged orders: ${latencies.length} in ${elapsed.toFixed(1)} s; cancels: ${cancels}; refused: ${JSON.stringify(Object.fromEntries(errors))}` +
      (RATE > 0 ? `; not sent (no free slot): ${notSent}` : ''),
  );
  console.log(`cores used (of 2): ${cpu}`);
  if (pushes.size && latencies.length)
    console.log(`pushes received in the window: ${[...pushes].map(([event, n]) => `${event} ${n} (${(n / latencies.length).toFixed(2)} an order)`).join(', ')}`);
  // A new connection's first request waits for the server to accept it, in a burst for 100 ms or more (docs/performance.md, forty-fourth sitting).
  if (opened !== undefined) console.log(`HTTP connections opened in the window: ${opened} (at most ${CONCURRENCY} open at once)`);
  if (threads) console.log(`server threads: ${threads}`);
  if (profile && latencies.length) console.log(await profile.report(latencies.length));
  if (syscalls && latencies.length) console.log(await syscalls.report(latencies.length));
  if (walStats && latencies.length) for (const line of walText(walStats, latencies.length, 1)) console.log(line);
  // The server: its one process, or the split roles' processes together.
  const serverGroups = Object.keys(pids).filter((g) => g !== 'generator');
  if (!process.env.API_URL && latencies.length) {
    console.log(beyondBareHttp(cpuMsPer(cpuBefore, cpuAfter, serverGroups, latencies.length)));
    console.log(inFloorUnits(cpuMsPer(cpuBefore, cpuAfter, cpuGroups(cpuAfter), latencies.length)));
    // What the load wrote, once the projector has caught up (the counts stop moving).
    let after = await rows.since();
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const next = await rows.since();
      if (JSON.stringify(next) === JSON.stringify(after)) break;
      after = next;
    }
    const per = Object.keys(after).map((k) => `${k} ${(after[k] / latencies.length).toFixed(2)}`);
    console.log(`rows written per acknowledged order: ${per.join(', ')}`);
  }
  await rows?.close();
  if (admin) {
    const e = (await call(stack.apiUrl, 'GET', 'admin/engine', undefined, admin)).data;
    const lag = e.projector_lag_ms;
    console.log(`projector lag ms: p50 ${lag.p50} p99 ${lag.p99} max ${lag.max}; journal write ms p50 ${e.journal_write_ms.p50} p99 ${e.journal_write_ms.p99} max ${e.journal_write_ms.max}; commands per journal row p50 ${e.commands_per_journal_row.p50}`);
    console.log(backpressureLine(e.backpressure_ms));
    const c = e.command_ms;
    console.log(`in the sequencer ms (queued, journaled, applied): p50 ${c.p50} p99 ${c.p99} max ${c.max}; the rest of a latency is the transport, the event loops and the generator`);
    // A due timer's lateness: how long a ready answer (server) or a due request or read answer (generator) waits for its thread.
    const [d, g] = [e.event_loop_delay_ms, generatorDelay];
    console.log(`event loop delay ms: server p50 ${d.p50} p99 ${d.p99} max ${d.max}; generator p50 ${g.p50} p99 ${g.p99} max ${g.max}`);
    console.log(`GC pauses ms (the server's main thread): ${gcPausesText(e.gc_pauses)}`);
    const trial = (await call(stack.apiUrl, 'GET', 'admin/ledger/trial-balance', undefined, admin)).data;
    console.log(`trial balance after the run: ${trial.ok ? 'exact' : `WRONG ${JSON.stringify(trial.currencies)}`}`);
  }
  cancelLatencies.sort((a, b) => a - b);
  console.log(`cancel latency ms: p50 ${percentile(cancelLatencies, 50).toFixed(1)}  p99 ${percentile(cancelLatencies, 99).toFixed(1)}`);
  if (sentLate.length) {
    sentLate.sort((a, b) => a - b);
    console.log(`sent after its scheduled time ms (the generator's own delay, counted in the latency): p50 ${percentile(sentLate, 50).toFixed(1)}  p99 ${percentile(sentLate, 99).toFixed(1)}  max ${sentLate[sentLate.length - 1].toFixed(1)}`);
  }
  console.log(`latency ms: p50 ${p50}  p90 ${percentile(latencies, 90).toFixed(1)}  p99 ${p99}  max ${(latencies[latencies.length - 1] ?? 0).toFixed(1)}`);
  if (notSent)
    log(`warning: ${notSent} orders were not sent (all ${CONCURRENCY} slots busy): the latencies leave them out; raise BENCH_CONCURRENCY or lower BENCH_RATE`);
  console.log(`orders: ${rate}/s p99 ${p99} ms cancels p99 ${percentile(cancelLatencies, 99).toFixed(1)} ms`);
} finally {
  await stack.stop();
}
