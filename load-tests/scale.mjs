// `npm run test:scale` ("Scale beyond one process"): 3 api + 2 engine + 1 worker processes from the
// built code on one fresh database and one Redis (own key prefix), all on loopback.
//  1. Orders placed through different api processes match each other; a socket on api #1 gets the
//     fill caused through api #3; a batched socket on api #2 gets the trade in its `feed`; the depth
//     read on api #2 shows a book held by the engine.
//  2. kill -9 the active engine under a steady load: the standby takes over; every acknowledged
//     order is there once, nothing is placed twice, the trial balance is exact.
//  3. SIGSTOP the active engine past its lease: the other takes over; after SIGCONT the old one
//     steps down and writes nothing (fencing token).
// Last line: `scale: take-over <T> s, <L> lost, <D> duplicated`. Bounded: stops by itself.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, freshStackEnv, holdsLease, log, makeTraders, sql, startRoleProcess, until } from './lib/stack.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const { io } = require('socket.io-client');
const { Redis } = require('ioredis');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const LEASE_MS = Number(process.env.SCALE_LEASE_MS ?? 3000);
const LOAD_TRADERS = 6;

// Seven ports: engine A, engine B, the worker, three api processes and engine A' (base.port + 0…6).
const base = await freshStackEnv({ ports: 7, env: { ENGINE_LEASE_MS: String(LEASE_MS), ENGINE_TRANSPORT: 'redis', LOG_LEVEL: 'info' } });
const procs = [];

/** One process of the given role on its own port; its output kept for the checks (and printed on failure). */
const start = (name, role, port) => startRoleProcess(procs, name, base.env, role, port);

const healthy = (p) => fetch(`${p.url}/api/health`).then((r) => r.ok, () => false);
const holds = holdsLease;

function order(api, token, body) {
  return fetch(`${api.url}/api/coin/trade`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: token },
    body: new URLSearchParams(body).toString(),
    signal: globalThis.AbortSignal.timeout(15_000),
  }).then((r) => r.json());
}

const results = { takeover: NaN, lost: 0, duplicated: 0, errors: {}, checks: [] };
const check = (name, ok, detail = '') => {
  results.checks.push({ name, ok, detail });
  log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
};

async function main() {
  // The first engine migrates and seeds; the rest start once it is up.
  const engineA = start('engine A', 'engine', base.port);
  await until('engine A', async () => (await healthy(engineA)) && holds(engineA), 120_000);
  const engineB = start('engine B', 'engine', base.port + 1);
  const worker = start('worker', 'worker', base.port + 2);
  const apis = [1, 2, 3].map((i) => start(`api #${i}`, 'api', base.port + 2 + i));
  await until('the other processes', async () => (await Promise.all([engineB, ...apis].map(healthy))).every(Boolean) && /worker is up/.test(worker.out), 120_000);
  check('engine B is a standby', /standby/.test(engineB.out) && !holds(engineB));

  const stack = { apiUrl: apis[0].url, databaseUrl: base.databaseUrl };
  const traders = await makeTraders(stack, LOAD_TRADERS + 2, { 3: '10000000', 1: '1000' });
  const [maker, taker] = traders.slice(LOAD_TRADERS);

  // 1. Across api processes.
  const socket = io(apis[0].url, { path: '/socket.io', transports: ['websocket'], auth: { token: maker.token } });
  const pushes = [];
  socket.on('orders', (m) => pushes.push(m));
  await until('the socket on api #1', () => socket.connected, 10_000);
  // A visitor on api #2 taking its market data batched, as the web app does: one `feed` per cycle.
  const watcher = io(apis[1].url, { path: '/socket.io', transports: ['websocket'], auth: { feed: 'batch' } });
  const fed = [];
  watcher.on('feed', (items) => fed.push(...items));
  await until('the watcher on api #2', () => watcher.connected, 10_000);
  await watcher.emitWithAck('subscribe', ['trades:BTC/USDT', 'depth:BTC/USDT']);
  const sell = await order(apis[0], maker.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '60000', quantity: '0.01' });
  const rest = await order(apis[0], maker.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '61000', quantity: '0.02' });
  const buy = await order(apis[2], taker.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '60000', quantity: '0.01' });
  check('a sell via api #1 and a buy via api #3 match', sell.code === 1 && buy.code === 1 && buy.data.status === 'completed' && buy.data.filled_qty === '0.01', `${buy.data?.status} ${buy.data?.filled_qty}`);
  await until('the fill pushed to the socket on api #1', () => pushes.some((m) => m.data.some((o) => o.order_id === sell.data.order_id && o.status === 'completed')), 10_000).then(
    (ms) => check('a socket on api #1 receives the fill caused through api #3', true, `${ms} ms`),
    () => check('a socket on api #1 receives the fill caused through api #3', false, JSON.stringify(pushes)),
  );
  await until('the trade in a feed on api #2', () => fed.some(([e, m]) => e === 'trades' && m.data.some((t) => t.price === '60000' && t.quantity === '0.01')), 10_000).then(
    (ms) => check('a batched socket on api #2 gets the trade and the book in its feed', fed.some(([e]) => e === 'depth'), `${ms} ms`),
    () => check('a batched socket on api #2 gets the trade and the book in its feed', false, JSON.stringify(fed).slice(0, 200)),
  );
  watcher.close();
  const seqs = pushes.map((m) => m.seq);
  check('the private channel sequence numbers rise one by one', seqs.every((s, i) => i === 0 || s === seqs[i - 1] + 1), seqs.join(','));
  // The engine shares the book with each market-data publication (conflated, every 200 ms).
  let depth;
  const shown = async () => (depth = await (await fetch(`${apis[1].url}/api/currency/depth?symbol=BTC/USDT`)).json()).data?.asks?.some(([p]) => p === '61000');
  await until('the book on api #2', shown, 3000).then(
    (ms) => check('api #2 reads the book the engine holds', true, `${ms} ms`),
    () => check('api #2 reads the book the engine holds', false, JSON.stringify(depth).slice(0, 200)),
  );
  await order(apis[0], maker.token, { order_id: rest.data.order_id }).catch(() => undefined);
  socket.close();

  // 2. kill -9 the active engine under load. Each trader sends orders with client ids through the three
  // api processes in turn; an unknown result (2107), a busy answer (2105) or a network error is retried
  // with the same client id, as a client should.
  const acked = new Map(); // client id → order id
  let duplicates = 0;
  let running = true;
  let killedAt = 0;
  let firstAfterKill = 0;
  let stoppedAt = 0;
  const loads = traders.slice(0, LOAD_TRADERS).map(async (t, i) => {
    let n = 0;
    while (running) {
      const clientId = `scale-${t.id}-${n++}`;
      const side = n % 2 ? 'buy' : 'sell';
      const body = { symbol: 'BTC/USDT', side, type: 'limit', price: String(59_950 + ((n * 7 + i * 13) % 100)), quantity: '0.001', client_order_id: clientId };
      for (let attempt = 0; running || attempt > 0; attempt++) {
        const api = apis[(i + n + attempt) % apis.length];
        const sentAt = Date.now();
        let r;
        try {
          r = await order(api, t.token, body);
        } catch {
          r = { code: 'network' };
        }
        if (r.code === 1) {
          const prior = acked.get(clientId);
          if (prior !== undefined && prior !== r.data.order_id) duplicates++;
          acked.set(clientId, r.data.order_id);
          // Take-over: the first order sent after the kill that comes back acknowledged.
          if (killedAt && sentAt > killedAt && !firstAfterKill) firstAfterKill = Date.now();
          break;
        }
        const phase = !killedAt ? 'before the kill' : !stoppedAt ? 'kill -9' : 'SIGSTOP';
        results.errors[phase] ??= {};
        results.errors[phase][r.code] = (results.errors[phase][r.code] ?? 0) + 1;
        if (![2105, 2106, 2107, 'network'].includes(r.code) || attempt > 100) break;
        await sleep(100);
      }
    }
  });
  await sleep(3000);
  const before = acked.size;
  killedAt = Date.now();
  engineA.child.kill('SIGKILL');
  log(`killed engine A (kill -9) after ${before} acknowledged orders`);
  await until('engine B to take over', () => holds(engineB), 30_000);
  const leaseAt = Date.now();
  await until('an order acknowledged after the kill', () => firstAfterKill > 0, 30_000);
  results.takeover = (firstAfterKill - killedAt) / 1000;
  check('the standby takes over within 5 s', results.takeover <= 5, `lease after ${((leaseAt - killedAt) / 1000).toFixed(1)} s, first order after ${results.takeover.toFixed(1)} s`);
  await sleep(3000);

  // 3. SIGSTOP the active engine (B) past its lease; a new standby (A') takes over; SIGCONT: B steps down.
  const engineA2 = start("engine A'", 'engine', base.port + 6);
  await until("engine A' to start", async () => (await healthy(engineA2)) && /standby/.test(engineA2.out), 120_000);
  const [{ token: tokenB }] = await sql(base.databaseUrl, `SELECT token::int FROM engine_lease WHERE name = 'engine'`);
  engineB.child.kill('SIGSTOP');
  stoppedAt = Date.now();
  await until("engine A' to take over from the paused B", () => holds(engineA2), 30_000);
  const acksAtTakeover = acked.size;
  await until("an order acknowledged by engine A'", () => acked.size > acksAtTakeover + 20, 30_000);
  log(`engine A' took over and serves ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s after SIGSTOP`);
  engineB.child.kill('SIGCONT');
  await until('engine B to step down', () => /stepping down/.test(engineB.out.split(/sequencer lease taken/).pop()), 15_000).then(
    () => check('the paused engine steps down after SIGCONT', true),
    () => check('the paused engine steps down after SIGCONT', false),
  );
  await sleep(2000);
  running = false;
  await Promise.all(loads);
  const [{ token: tokenA2 }] = await sql(base.databaseUrl, `SELECT token::int FROM engine_lease WHERE name = 'engine'`);
  const [late] = await sql(
    base.databaseUrl,
    `SELECT COUNT(*)::int AS n FROM sequencer_journal WHERE token = $1 AND seq > (SELECT MIN(seq) FROM sequencer_journal WHERE token = $2)`,
    [tokenB, tokenA2],
  );
  const byToken = await sql(base.databaseUrl, 'SELECT token::int, MIN(seq)::int AS first, MAX(seq)::int AS last, COUNT(*)::int AS n FROM sequencer_journal GROUP BY token ORDER BY 2');
  check(
    'no journal write by the old holder after the new one took over (fencing)',
    tokenA2 > tokenB && late.n === 0 && byToken.some((r) => r.token === tokenA2),
    `tokens ${tokenB} → ${tokenA2}, late writes ${late.n}; journal by token ${JSON.stringify(byToken)}`,
  );
  for (const p of [engineA, engineB, engineA2]) log(`${p.name}: ${(p.out.match(/[^\n]*(lease taken|stepping down|standby|claimed|set aside|fatal|halt)[^\n]*/g) ?? []).map((l) => l.slice(0, 200)).join('\n  ')}`);

  // Verification: every acknowledged order once, nothing placed twice, the books balance.
  const admin = (await call(apis[0].url, 'POST', 'admin/login', { email: base.env.ADMIN_EMAIL, password: base.env.ADMIN_PASSWORD })).data.token;
  let tb;
  await until('the projection to catch up', async () => (tb = await call(apis[0].url, 'GET', 'admin/ledger/trial-balance', undefined, admin)).data?.ok, 30_000).catch(() => undefined);
  const ids = [...acked.values()];
  const found = new Set((await sql(base.databaseUrl, 'SELECT id::text FROM orders WHERE id = ANY($1::bigint[])', [ids])).map((r) => r.id));
  results.lost = ids.filter((id) => !found.has(String(id))).length;
  const [dup] = await sql(
    base.databaseUrl,
    `SELECT COUNT(*)::int AS n FROM (SELECT user_id, client_order_id FROM orders WHERE client_order_id LIKE 'scale-%' GROUP BY 1, 2 HAVING COUNT(*) > 1) d`,
  );
  results.duplicated = duplicates + dup.n;
  check('trial balance exact', !!tb?.data?.ok);
  check('every acknowledged order is in the orders table', results.lost === 0, `${ids.length} acknowledged, ${results.lost} missing`);
  check('no client order id placed twice', results.duplicated === 0, `${results.duplicated}`);
  log(`errors clients saw (each retried with the same client id): ${JSON.stringify(results.errors)}`);
}

let failed = false;
try {
  await main();
} catch (err) {
  failed = true;
  log(`error: ${err.stack ?? err}`);
  log(`errors clients saw so far: ${JSON.stringify(results.errors)}`);
  for (const p of procs) log(`--- ${p.name} (last output) ---\n${p.out.slice(-3000)}`);
} finally {
  for (const p of procs) {
    if (p.child.exitCode === null) {
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
    }
  }
  await sleep(500);
  await base.dropDatabase();
  const redis = new Redis(base.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = await redis.keys(`${base.env.REDIS_PREFIX}*`).catch(() => []);
  if (keys.length) await redis.del(...keys).catch(() => undefined);
  redis.disconnect();
}
const bad = results.checks.filter((c) => !c.ok);
for (const c of results.checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? ` (${c.detail})` : ''}\n`);
process.stdout.write(`scale: take-over ${Number.isFinite(results.takeover) ? results.takeover.toFixed(1) : '-'} s, ${results.lost} lost, ${results.duplicated} duplicated\n`);
process.exit(failed || bad.length ? 1 : 0);
