// npm run test:chaos [-- --fast] — faults during load, on PRIVATE instances this command starts
// itself: a PostgreSQL cluster (initdb + pg_ctl, its own port and data folder under /tmp, run as
// the `postgres` user when started as root) and a redis-server on its own port; never the shared
// services. Both are stopped at the end, also when the run fails or is interrupted.
//
// Load throughout: spot orders with client ids (an unknown answer or a network error is retried
// with the same client id, as a client should) and options with a 5 s delivery time, so options
// fall due during every fault.
// Phase 1, one ROLE=all process: kill -9 + restart; PostgreSQL restart (the postmaster pid must
// change and a connection must fail during the outage); Redis down 10 s (Redis has no
// persistence: every queued job is lost, the sweep must catch up); SIGSTOP 5 s; a flood of
// 5,000 jobs into the option-delivery queue.
// Phase 2 (not with --fast), split roles as docker-compose runs them (ENGINE_TRANSPORT=redis,
// 2 engines, 1 worker, 2 api): kill -9 of an api process, of the active engine (the standby takes
// over), of the worker (restarted).
// Afterwards: every acknowledged order is in `orders` (lost), no client id placed twice and no
// order id acknowledged for two client ids (duplicated); every acknowledged option is delivered
// once, on the first sampled tick at or after its delivery time, with exactly three ledger postings
// (the stake, the house's reserve, the delivery) and one settlement message; wealth orders with 3 missed days (moved back
// before kill -9 of the server and of the worker) paid each day once by the restarted process;
// after Redis lost its data, every job scheduler back and the contract watcher watching again;
// an IEO subscription window ending during kill -9 of the server, Redis down and kill -9 of the
// worker allocated and each subscription settled by one posting; every flood job completed; trial
// balance exact.
// Recovery: from the end of the outage (process restarted, service back, SIGCONT) or from the
// kill when a standby takes over, until the first order sent after it is acknowledged.
// Prints a table, then `chaos: <F> faults, <L> lost, <D> duplicated`. Bounded; loopback only.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { holdsLease, startRoleProcess, until } from './lib/stack.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const FAST = process.argv.includes('--fast');
const PG_BIN = '/usr/lib/postgresql/15/bin';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(join(tmpdir(), 'kestrel-chaos-'));
const pgData = join(dir, 'pg');
const asRoot = process.getuid?.() === 0;
// PostgreSQL refuses to run as root: then the cluster runs as the `postgres` user.
const asPg = (cmd, args) => spawnSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args, { encoding: 'utf8', timeout: 60_000 });
if (asRoot) spawnSync('chown', ['postgres', dir]);
const pgCtl = (...a) => asPg(`${PG_BIN}/pg_ctl`, ['-D', pgData, '-l', join(dir, 'pg.log'), ...a]);
const postmasterPid = () => {
  try {
    return Number(readFileSync(join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
};
/** A running process (a zombie, stopped but not yet reaped by PID 1, counts as gone). */
const alive = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};
const log = (msg) => process.stderr.write(`[chaos] ${msg}\n`);

/** A port nothing listens on now, picked by the OS (a random one could be an outgoing connection's: they use the same range here, 32768-60999). */
const freePort = () =>
  new Promise((ok, fail) => {
    const s = createServer().once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
const accepts = (port) =>
  new Promise((ok) => {
    const c = connect(port, '127.0.0.1', () => {
      c.end();
      ok(true);
    }).once('error', () => ok(false));
  });

let pgPort;
/** The private cluster's server options (its port is picked in main). */
const pgOpts = () => `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=300`;
let redis;
let redisPort;
/** Starts the private Redis on its port (the same one after a restart) and waits until it takes connections. */
const startRedis = async () => {
  redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await until('the private Redis', () => {
    if (redis.exitCode !== null) throw new Error(`redis-server exited (${redis.exitCode}) on port ${redisPort}`);
    return accepts(redisPort);
  }, 10_000);
};
const procs = [];

/**
 * kill -9, then wait until the process is gone: its listening socket closes only as it exits (after
 * its memory is torn down, which on a loaded machine took over the fixed second this used to wait:
 * the restart on the same port failed with EADDRINUSE).
 */
async function killHard(child) {
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** Stops everything this run started (server processes, Redis, the cluster); safe to call twice. */
let cleaned = false;
function cleanup() {
  if (cleaned) return;
  cleaned = true;
  for (const p of procs) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
    }
  }
  if (redis && redis.exitCode === null && redis.signalCode === null) redis.kill('SIGKILL');
  const pid = postmasterPid();
  const stopped = pgCtl('-m', 'immediate', '-w', 'stop');
  if (stopped.status !== 0 && pid) log(`pg_ctl stop: ${stopped.stderr?.trim()}`);
  // Whatever pg_ctl said, the private postmaster must not outlive the run.
  if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    log(`${sig}: stopping the private instances`);
    cleanup();
    process.exit(130);
  });
}
process.on('exit', cleanup);

/** One backend process of a role, output kept (printed on failure). */
const startProcess = (name, env, role, port) => startRoleProcess(procs, name, env, role, port, 200_000);
const healthy = (p) =>
  fetch(`${p.url}/api/health`, { signal: globalThis.AbortSignal.timeout(2000) }).then(
    (r) => r.ok,
    () => false,
  );
const holds = holdsLease;

async function post(url, path, body, token, ms = 8000) {
  const r = await fetch(`${url}/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(token ? { authorization: token } : {}) },
    body: new URLSearchParams(body).toString(),
    signal: globalThis.AbortSignal.timeout(ms),
  });
  return r.json();
}

const rows = [];
const totals = { lost: 0, duplicated: 0, checks: [] };
const check = (name, ok, detail = '') => {
  totals.checks.push({ name, ok, detail });
  log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
};

/**
 * One phase: a stack (described by `apis()`), spot and option load on it, faults one after another,
 * then the checks on its database. `faults` are {name, act(ctx) → {outage, recoveredFrom}}.
 */
async function phase(label, base, apis, faults, stack) {
  const { call, makeTraders, verifyTraders, sql } = stack.lib;
  const first = apis()[0];
  const ctx = { fault: 'start-up', killedAt: 0 };
  const traders = await makeTraders({ apiUrl: first.url, databaseUrl: base.databaseUrl }, 8, { 3: '10000000', 1: '1000' });
  const optionTraders = traders.slice(6);
  await verifyTraders({ apiUrl: first.url }, optionTraders);
  for (const u of optionTraders) {
    const r = await call(first.url, 'POST', 'wallet/change', { from: 'coin', to: 'option', currency_id: '3', amount: '1000000' }, u.token);
    if (r.code !== 1) throw new Error(`transfer: ${JSON.stringify(r)}`);
  }
  for (const u of optionTraders) {
    const r = await call(first.url, 'POST', 'wallet/change', { from: 'coin', to: 'trust', currency_id: '3', amount: '10000' }, u.token);
    if (r.code !== 1) throw new Error(`transfer: ${JSON.stringify(r)}`);
  }
  const hosting = (await call(first.url, 'GET', 'lh/deposit/config?type=1')).data.find((p) => p.code === 'hosting-15d');
  /**
   * Wealth orders with 3 unpaid days: bought now, then moved 3 days back (as if the process had been
   * down for 3 days; accrual runs at 00:00 UTC and once when a worker starts, so these are paid by
   * the catch-up run of the restarted process).
   */
  async function wealthDue() {
    const ids = [];
    for (const u of optionTraders) {
      const r = await call(first.url, 'POST', 'lh/deposit', { product_id: String(hosting.id), amount: '1000', agree: '1' }, u.token);
      if (r.code !== 1) throw new Error(`wealth: ${JSON.stringify(r)}`);
      ids.push(r.data.order_id);
    }
    const start = Math.floor(Date.now() / 86_400_000) - 3;
    await sql(base.databaseUrl, `UPDATE wealth_orders SET start_day = $2, end_at = to_timestamp(($2 + days) * 86400) WHERE id = ANY($1::bigint[])`, [
      ids,
      start,
    ]);
    return ids;
  }
  const admin = (await call(first.url, 'POST', 'admin/login', { email: base.env.ADMIN_EMAIL, password: base.env.ADMIN_PASSWORD })).data.token;
  let ieoCount = 0;
  /** An IEO project whose subscription window ends `ms` from now, with 4 subscribers (the whole supply). */
  async function ieoEnding(ms) {
    const symbol = `CH${label === 'all' ? 'A' : 'S'}${++ieoCount}X`;
    const at = (d) => new Date(Date.now() + d).toISOString();
    const p = await call(
      first.url,
      'POST',
      'admin/ieo',
      {
        symbol,
        name: `Chaos ${symbol}`,
        decimals: '2',
        price: '0.5',
        supply: '1000',
        start_at: at(-1000),
        end_at: at(60_000),
        min_qty: '10',
        max_qty: '1000',
        website: 'https://example.org',
        white_paper: 'https://example.org/paper.pdf',
        reason: 'chaos: a window ending during a fault',
      },
      admin,
    );
    if (p.code !== 1) throw new Error(`ieo: ${JSON.stringify(p)}`);
    for (const [i, u] of traders.slice(0, 4).entries()) {
      const r = await call(first.url, 'POST', 'lh/newcoin/order/submit', { project_id: String(p.data.id), quantity: String(100 * (i + 1)), client_id: `chaos-ieo-${p.data.id}-${i}` }, u.token);
      if (r.code !== 1) throw new Error(`ieo subscription: ${JSON.stringify(r)}`);
    }
    // Then the operator moves the end to `ms` from now (the allocation job is rescheduled).
    const moved = await call(first.url, 'POST', `admin/ieo/${p.data.id}`, { end_at: at(ms), reason: 'chaos: end during the fault' }, admin);
    if (moved.code !== 1) throw new Error(`ieo end: ${JSON.stringify(moved)}`);
    return p.data.id;
  }
  const set = await call(
    first.url,
    'POST',
    'admin/option-periods',
    { seconds: '5', profit_ratio: '0.8', min_qty: '1', max_qty: '100000', fee_rate: '0', enabled: 'true', reason: 'chaos: options due during every fault' },
    admin,
  );
  if (set.code !== 1) throw new Error(`option period: ${JSON.stringify(set)}`);
  const periodId = String(set.data.id);
  await until(
    'a recorded mark price',
    async () => (await sql(base.databaseUrl, 'SELECT COUNT(DISTINCT market_id)::int AS n FROM mark_prices'))[0].n >= 2,
    60_000,
  );

  const acked = new Map(); // client id → {orderId, fault}
  const options = new Map(); // client id → {orderId, fault}
  let ackDuplicates = 0;
  let running = true;
  let n = 0;
  const errors = {};
  /** Sends one command with retries under the same client id; resolves with the answer or undefined (never acknowledged). */
  async function send(path, body, token, i) {
    for (let attempt = 0; attempt < 200; attempt++) {
      const list = apis().filter((p) => !p.down);
      const api = list[(i + attempt) % Math.max(1, list.length)];
      const sentAt = Date.now();
      let r;
      try {
        if (!api) throw new Error('no api');
        r = await post(api.url, path, body, token);
      } catch {
        r = { code: 'network' };
      }
      if (r.code === 1) return { r, sentAt };
      const key = `${ctx.fault}: ${r.code}`;
      errors[key] = (errors[key] ?? 0) + 1;
      if (![2105, 2106, 2107, 'network', 500].includes(r.code) && !(r.code >= 5000)) return undefined;
      if (!running && attempt > 20) return undefined;
      await sleep(150);
    }
    return undefined;
  }
  const spot = traders.slice(0, 6).map(async (t, i) => {
    while (running) {
      const k = n++;
      const clientId = `chaos-${label}-${t.id}-${k}`;
      const side = k % 2 ? 'buy' : 'sell';
      const body = { symbol: 'BTC/USDT', side, type: 'limit', price: String(59_950 + ((k * 7 + i * 13) % 100)), quantity: '0.001', client_order_id: clientId };
      const fault = ctx.fault;
      const got = await send('coin/trade', body, t.token, i + k);
      if (!got) continue;
      const prior = acked.get(clientId);
      if (prior && prior.orderId !== got.r.data.order_id) ackDuplicates++;
      acked.set(clientId, { orderId: got.r.data.order_id, fault });
      if (ctx.backAt && got.sentAt >= ctx.backAt && !ctx.firstAck) ctx.firstAck = Date.now();
    }
  });
  const optionLoad = optionTraders.map(async (t, i) => {
    let k = 0;
    while (running) {
      const clientId = `chaos-${label}-opt-${t.id}-${k++}`;
      const fault = ctx.fault;
      const got = await send(
        'microtrade/submit',
        {
          symbol: k % 2 ? 'BTC/USDT' : 'ETH/USDT',
          direction: k % 3 ? 'up' : 'down',
          period_id: periodId,
          quantity: String(10 + (k % 50)),
          client_id: clientId,
        },
        t.token,
        i + k,
      );
      if (got) options.set(clientId, { orderId: got.r.data.order_id, fault });
      await sleep(300);
    }
  });

  for (const [i, f] of faults.entries()) {
    ctx.fault = f.name;
    // Options bought in the gap (5 s delivery) fall due during the fault.
    await sleep(i === 0 ? 5000 : 3000);
    const startedAt = Date.now();
    ctx.backAt = 0;
    ctx.firstAck = 0;
    const wealth = f.wealth ? await wealthDue() : [];
    const ieo = f.ieo ? await ieoEnding(1500) : undefined;
    const res = (await f.act()) ?? {};
    ctx.backAt = res.recoveredFrom ?? Date.now();
    await until(`an order acknowledged after "${f.name}"`, () => ctx.firstAck > 0, 90_000);
    const row = {
      name: f.name,
      outage: (ctx.backAt - startedAt) / 1000,
      recovery: (ctx.firstAck - ctx.backAt) / 1000,
      note: res.note ?? '',
      startedAt,
      endedAt: Date.now(),
      lost: 0,
      duplicated: 0,
    };
    rows.push(row);
    log(`${f.name}: outage ${row.outage.toFixed(1)} s, recovered ${row.recovery.toFixed(1)} s after${row.note ? ` (${row.note})` : ''}`);
    if (f.after) await f.after(row, res);
    if (ieo) {
      // The window ended during the fault: allocated and each subscription settled once.
      // The settlements are sequencer postings: their ledger rows come with the projection, a moment after `settled_at`.
      let p;
      let subs = [];
      const subsQuery = `SELECT s.id::text, s.settled_at IS NOT NULL AS settled,
                (SELECT COUNT(DISTINCT event_seq)::int FROM ledger_entries WHERE ref_type = 'ieo-settlement' AND ref_id = s.id::text) AS postings
         FROM ieo_subscriptions s WHERE s.project_id = $1`;
      await until(
        'the IEO allocation',
        async () => {
          [p] = await sql(base.databaseUrl, 'SELECT status FROM ieo_projects WHERE id = $1', [ieo]);
          subs = await sql(base.databaseUrl, subsQuery, [ieo]);
          return p.status === 'distributed' && subs.every((x) => x.settled && x.postings > 0);
        },
        30_000,
      ).catch(() => undefined);
      await sleep(500); // a second posting, if any, would be projected by now
      subs = await sql(base.databaseUrl, subsQuery, [ieo]);
      const late = subs.filter((x) => !x.settled || x.postings === 0).length + Math.max(0, 4 - subs.length);
      const twice = subs.filter((x) => x.postings > 1).length;
      row.lost += late;
      row.duplicated += twice;
      totals.lost += late;
      totals.duplicated += twice;
      check(
        `${f.name}: an IEO window ending meanwhile allocated, each subscription settled once`,
        p?.status === 'distributed' && !late && !twice,
        `${p?.status} ${JSON.stringify(subs)}`,
      );
      row.note = [row.note, `IEO ended meanwhile: ${p?.status}, ${subs.filter((x) => x.settled && x.postings === 1).length}/4 settled once`]
        .filter(Boolean)
        .join('; ');
    }
    if (wealth.length) {
      // Each of the 3 missed days paid once by the restarted process's catch-up: 3 interest postings per order.
      let paid = [];
      const q = `SELECT o.id::text, o.paid_days, (SELECT COUNT(*)::int FROM events WHERE command_id LIKE 'wealth-interest:' || o.id || ':%') AS postings FROM wealth_orders o WHERE o.id = ANY($1::bigint[])`;
      await until('the wealth catch-up', async () => (paid = await sql(base.databaseUrl, q, [wealth])).every((o) => o.paid_days >= 3), 30_000).catch(
        () => undefined,
      );
      const late = paid.filter((o) => o.paid_days < 3).length;
      const twice = paid.filter((o) => o.paid_days > 3 || o.postings !== o.paid_days).length;
      row.lost += late;
      row.duplicated += twice;
      totals.lost += late;
      totals.duplicated += twice;
      check(`${f.name}: wealth accrual caught up once (3 missed days, ${wealth.length} orders)`, !late && !twice, JSON.stringify(paid));
      row.note = [row.note, `wealth: ${paid.filter((o) => o.paid_days === 3 && o.postings === 3).length}/${wealth.length} orders paid 3 missed days once`]
        .filter(Boolean)
        .join('; ');
    }
  }
  ctx.fault = 'after the faults';
  await sleep(1500);
  running = false;
  await Promise.all([...spot, ...optionLoad]);
  log(`${label}: ${acked.size} orders and ${options.size} options acknowledged; errors seen (retried): ${JSON.stringify(errors)}`);

  // Spot orders. The orders table is a projection: read it once the projector has reached the
  // journal's head (a projector that never gets there is reported as such, not as lost orders).
  const lag = async () =>
    Number((await sql(base.databaseUrl, `SELECT COALESCE((SELECT MAX(seq) FROM sequencer_journal), 0) - COALESCE((SELECT seq FROM sequencer_projection WHERE id = 1), 0) AS lag`))[0].lag);
  const caughtUp = await until('the projection to reach the journal head', async () => (await lag()) <= 0, 60_000).then(
    () => true,
    () => false,
  );
  check(`${label}: the projection reaches the journal's head`, caughtUp, caughtUp ? '' : `${await lag()} batches behind after 60 s`);
  const byFault = (fault) => rows.find((r) => r.name === fault);
  const list = [...acked.entries()];
  const found = new Set(
    (await sql(base.databaseUrl, 'SELECT id::text FROM orders WHERE id = ANY($1::bigint[])', [list.map(([, a]) => a.orderId)])).map((r) => r.id),
  );
  for (const [, a] of list) {
    if (found.has(String(a.orderId))) continue;
    totals.lost++;
    const r = byFault(a.fault);
    if (r) r.lost++;
  }
  const dupClients = await sql(
    base.databaseUrl,
    `SELECT client_order_id FROM orders WHERE client_order_id LIKE $1 GROUP BY user_id, client_order_id HAVING COUNT(*) > 1`,
    [`chaos-${label}-%`],
  );
  for (const d of dupClients) {
    totals.duplicated++;
    const r = byFault(acked.get(d.client_order_id)?.fault);
    if (r) r.duplicated++;
  }
  totals.duplicated += ackDuplicates;
  check(
    `${label}: every acknowledged order is in the books`,
    list.every(([, a]) => found.has(String(a.orderId))),
    `${list.length} acknowledged`,
  );
  check(
    `${label}: no client order id placed twice`,
    dupClients.length === 0 && ackDuplicates === 0,
    `${dupClients.length} in the table, ${ackDuplicates} acknowledged twice`,
  );

  // Options: all due; wait for delivery (the sweep runs every 5 s).
  const optIds = [...options.values()].map((o) => o.orderId);
  let pending;
  await until(
    'every acknowledged option delivered',
    async () => {
      [{ pending }] = await sql(base.databaseUrl, `SELECT COUNT(*)::int AS pending FROM option_orders WHERE id = ANY($1::bigint[]) AND status = 'pending'`, [
        optIds,
      ]);
      return pending === 0;
    },
    60_000,
  ).catch(() => undefined);
  const opt = await sql(
    base.databaseUrl,
    `SELECT o.id::text, o.status, o.deliver_at, o.delivery_tick_id::text AS tick, o.result,
            (SELECT ts - o.deliver_at > interval '5 seconds' FROM mark_prices WHERE id = o.delivery_tick_id) AS late,
            (SELECT id::text FROM mark_prices WHERE market_id = o.market_id AND ts >= o.deliver_at AND source = 'sample' ORDER BY ts, id LIMIT 1) AS rule_tick,
            (SELECT COUNT(DISTINCT event_seq)::int FROM ledger_entries WHERE ref_type = 'option' AND ref_id = o.id::text) AS postings,
            (SELECT COUNT(*)::int FROM user_messages WHERE ref = 'option:' || o.id) AS messages
     FROM option_orders o WHERE o.id = ANY($1::bigint[])`,
    [optIds],
  );
  const byId = new Map(opt.map((o) => [o.id, o]));
  const faultAt = (t) => rows.find((r) => t >= r.startedAt && t <= r.endedAt);
  let optLost = 0;
  let optDup = 0;
  let wrongTick = 0;
  let wrongVoid = 0;
  for (const o of opt) {
    const r = faultAt(new Date(o.deliver_at).getTime());
    if (r) r.due = (r.due ?? 0) + 1;
    if (o.status !== 'delivered') {
      optLost++;
      if (r) r.lost++;
    } else if (o.postings !== 3 || o.messages !== 1) {
      // The purchase's two postings (the stake, the house's payout reserve) and the delivery's one.
      optDup++;
      if (r) r.duplicated++;
    } else if (o.tick !== o.rule_tick) wrongTick++;
    else if ((o.result === 'void') !== o.late) wrongVoid++;
  }
  optLost += optIds.filter((id) => !byId.has(String(id))).length;
  totals.lost += optLost;
  totals.duplicated += optDup;
  check(`${label}: every acknowledged option delivered`, optLost === 0, `${optIds.length} acknowledged, ${optLost} not delivered`);
  check(`${label}: each option settled once (3 ledger postings: stake, reserve, delivery; 1 message)`, optDup === 0, `${optDup} settled more than once`);
  check(`${label}: each option on its recorded delivery tick (the first sample at or after its delivery time)`, wrongTick === 0, `${wrongTick} on another tick`);
  check(`${label}: void exactly when its delivery tick came more than 5 s late`, wrongVoid === 0, `${wrongVoid} void on time or not void when late`);

  let tb;
  await until('the trial balance', async () => (tb = await call(first.url, 'GET', 'admin/ledger/trial-balance', undefined, admin)).data?.ok, 30_000).catch(
    () => undefined,
  );
  check(`${label}: trial balance exact`, !!tb?.data?.ok, tb?.data?.ok ? '' : JSON.stringify(tb).slice(0, 300));
  return { orders: list.length, options: optIds.length };
}

/** `queue/scheduler` of every job scheduler of a stack (its Redis key prefix). */
async function jobSchedulers(prefix) {
  const { Queue } = require('bullmq');
  const out = [];
  for (const name of ['lever-watch', 'wealth-accrual', 'proof-of-liabilities', 'promotion-rebates', 'loan-overdue']) {
    const q = new Queue(name, { connection: { port: redisPort, host: '127.0.0.1' }, prefix: `${prefix}bull` });
    try {
      for (const j of await q.getJobSchedulers()) out.push(`${name}/${j.key}`);
    } finally {
      await q.close();
    }
  }
  return out.sort();
}

async function main() {
  const t0 = Date.now();
  const init = asPg(`${PG_BIN}/initdb`, ['-D', pgData, '-U', 'postgres', '--auth=trust']);
  if (init.status !== 0) throw new Error(`initdb: ${init.stderr}`);
  pgPort = await freePort();
  const started = pgCtl('-o', pgOpts(), '-w', 'start');
  if (started.status !== 0) throw new Error(`pg_ctl start: ${started.stdout} ${started.stderr} ${readFileSync(join(dir, 'pg.log'), 'utf8').slice(-1000)}`);
  redisPort = await freePort();
  await startRedis();
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  process.env.BENCH_PG_SERVER = `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
  process.env.REDIS_URL = redisUrl;
  const lib = await import('./lib/stack.mjs');
  const { Client } = require('pg');
  const { Queue } = require('bullmq');
  const counts = {};

  // Phase 1: one ROLE=all process.
  {
    const base = await lib.freshStackEnv({ simulator: true, env: { REDIS_URL: redisUrl, FLASH_FLOAT: 'USDT:100000000' } });
    let server = startProcess('server', base.env, 'all', base.port);
    await until('the server', () => healthy(server), 120_000);
    const faults = [
      {
        name: 'kill -9 server + restart',
        ieo: !FAST, // --fast stays well under a minute
        wealth: true,
        act: async () => {
          server.down = true;
          await killHard(server.child);
          await sleep(1000);
          server = startProcess('server', base.env, 'all', base.port);
          await until('the restarted server', () => healthy(server), 120_000);
        },
      },
      {
        name: 'restart PostgreSQL (3 s down)',
        act: async () => {
          const before = postmasterPid();
          const stop = pgCtl('-m', 'fast', '-w', 'stop');
          if (stop.status !== 0) throw new Error(`pg_ctl stop: ${stop.stderr}`);
          const probe = new Client({ connectionString: process.env.BENCH_PG_SERVER, connectionTimeoutMillis: 2000 });
          const refused = await probe.connect().then(
            () => probe.end().then(() => false),
            () => true,
          );
          check(
            'PostgreSQL is really down during its restart (postmaster gone, a connection refused)',
            refused && !alive(before),
            `pid ${before} alive: ${alive(before)}, connection refused: ${refused}`,
          );
          await sleep(3000);
          const start = pgCtl('-o', pgOpts(), '-w', 'start');
          if (start.status !== 0) throw new Error(`pg_ctl start: ${start.stderr}`);
          const after = postmasterPid();
          check('PostgreSQL restarted (a new postmaster pid)', !!after && after !== before && alive(after), `${before} → ${after}`);
          return { note: `postmaster ${before} → ${after}` };
        },
      },
      {
        name: 'Redis down 10 s',
        ieo: true,
        act: async () => {
          const schedulers = await jobSchedulers(base.env.REDIS_PREFIX);
          redis.kill('SIGKILL');
          await sleep(10_000);
          await startRedis();
          return { schedulers };
        },
        // Redis comes back empty (no persistence): the job schedulers must be re-created and the
        // contract watcher must watch the ticks recorded since.
        after: async (row, res) => {
          const want = res.schedulers;
          let have = [];
          await until(
            'the job schedulers to be re-created',
            async () => (have = await jobSchedulers(base.env.REDIS_PREFIX)).length >= want.length,
            30_000,
          ).catch(() => undefined);
          check(
            'every job scheduler is back after Redis lost its data',
            want.every((w) => have.includes(w)),
            `before ${want.join(', ')}; after ${have.join(', ')}`,
          );
          const [{ id }] = await lib.sql(base.databaseUrl, 'SELECT MAX(id)::text AS id FROM mark_prices WHERE market_id = 1');
          const watched = await until(
            'the contract watcher to watch a tick recorded after Redis came back',
            async () => {
              const [c] = await lib.sql(base.databaseUrl, 'SELECT tick_id::text FROM lever_cursors WHERE market_id = 1');
              return !!c && BigInt(c.tick_id) >= BigInt(id);
            },
            30_000,
          ).then(
            () => true,
            () => false,
          );
          check('the contract watcher runs again after Redis lost its data', watched, `tick ${id}`);
        },
      },
      {
        name: 'SIGSTOP server 5 s',
        act: async () => {
          server.child.kill('SIGSTOP');
          await sleep(5000);
          server.child.kill('SIGCONT');
        },
      },
      {
        name: 'fill the option-delivery queue (5,000 jobs)',
        act: async () => {
          const queue = new Queue('option-delivery', { connection: { url: redisUrl }, prefix: `${base.env.REDIS_PREFIX}bull` });
          const second = Math.floor(Date.now() / 1000);
          const jobs = Array.from({ length: 5000 }, (_, i) => ({
            name: 'deliver',
            data: { second: second - 3 - (i % 20) },
            opts: { jobId: `flood-${i}`, attempts: 30, backoff: { type: 'fixed', delay: 1000 } },
          }));
          const t = Date.now();
          for (let i = 0; i < jobs.length; i += 500) await queue.addBulk(jobs.slice(i, i + 500));
          // Drained: no flood job left waiting, active or delayed (for a retry); the delivery jobs
          // of options bought meanwhile come and go.
          const flood = (jobs) => jobs.filter((j) => j?.id?.startsWith('flood-'));
          await until('the flood to drain', async () => flood(await queue.getJobs(['wait', 'active', 'delayed', 'prioritized'], 0, -1)).length === 0, 240_000);
          const drained = (Date.now() - t) / 1000;
          const done = new Set(flood(await queue.getJobs(['completed'], 0, -1)).map((j) => j.id)).size;
          const failed = flood(await queue.getJobs(['failed'], 0, -1)).length;
          check(
            'every flood job completed (none failed)',
            done === 5000 && failed === 0,
            `${done} of 5000 completed, ${failed} failed, drained in ${drained.toFixed(1)} s`,
          );
          await queue.close();
          return { recoveredFrom: t, note: `5,000 jobs drained in ${drained.toFixed(1)} s` };
        },
      },
    ];
    const stack = { lib };
    counts.all = await phase('all', base, () => [server], FAST ? faults.slice(0, 2) : faults, stack);
    server.child.kill('SIGTERM');
    await new Promise((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', r)));
    await base.dropDatabase();
  }

  // Phase 2: the split roles.
  if (!FAST) {
    const base = await lib.freshStackEnv({
      simulator: true,
      ports: 5, // engines A and B, the worker, two api processes (base.port + 0…4)
      env: { REDIS_URL: redisUrl, ENGINE_TRANSPORT: 'redis', ENGINE_LEASE_MS: '2000', LOG_LEVEL: 'info', FLASH_FLOAT: 'USDT:100000000' },
    });
    const engineA = startProcess('engine A', base.env, 'engine', base.port);
    await until('engine A', async () => (await healthy(engineA)) && holds(engineA), 120_000);
    const engineB = startProcess('engine B', base.env, 'engine', base.port + 1);
    let worker = startProcess('worker', base.env, 'worker', base.port + 2);
    const apis = [startProcess('api #1', base.env, 'api', base.port + 3), startProcess('api #2', base.env, 'api', base.port + 4)];
    await until('the split roles', async () => (await Promise.all([engineB, ...apis].map(healthy))).every(Boolean) && /worker is up/.test(worker.out), 120_000);
    const faults = [
      {
        name: 'kill -9 api process + restart',
        act: async () => {
          apis[0].down = true;
          await killHard(apis[0].child);
          await sleep(1000);
          apis[0] = startProcess('api #1', base.env, 'api', base.port + 3);
          apis[0].down = true;
          await until('api #1 back', () => healthy(apis[0]), 120_000);
          apis[0].down = false;
        },
      },
      {
        name: 'kill -9 active engine (standby takes over)',
        act: async () => {
          const killedAt = Date.now();
          engineA.child.kill('SIGKILL');
          await until('engine B to take over', () => holds(engineB), 30_000);
          return { recoveredFrom: killedAt, note: `lease taken ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill` };
        },
      },
      {
        name: 'kill -9 worker + restart',
        ieo: true,
        wealth: true,
        act: async () => {
          await killHard(worker.child);
          await sleep(6000);
          worker = startProcess('worker', base.env, 'worker', base.port + 2);
          await until('the worker back', () => /worker is up/.test(worker.out), 120_000);
          return { note: 'down 6 s: options fell due meanwhile' };
        },
      },
    ];
    counts.split = await phase('split', base, () => apis, faults, { lib });
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => (p.child.exitCode !== null || p.child.signalCode !== null ? undefined : new Promise((r) => p.child.once('exit', r)))));
    await base.dropDatabase();
  }

  process.stdout.write(`fault | count | acknowledged lost | duplicates | outage | recovery | options due during | note\n`);
  for (const r of rows) {
    process.stdout.write(`${r.name} | 1 | ${r.lost} | ${r.duplicated} | ${r.outage.toFixed(1)} s | ${r.recovery.toFixed(1)} s | ${r.due ?? 0} | ${r.note}\n`);
  }
  const bad = totals.checks.filter((c) => !c.ok);
  for (const c of bad) process.stdout.write(`FAIL ${c.name}${c.detail ? ` (${c.detail})` : ''}\n`);
  const c = (k) => counts[k] ?? { orders: 0, options: 0 };
  process.stdout.write(
    `acknowledged: ${c('all').orders + c('split').orders} orders, ${c('all').options + c('split').options} options; ${totals.checks.length - bad.length}/${totals.checks.length} checks ok; ${((Date.now() - t0) / 1000).toFixed(0)} s\n`,
  );
  process.stdout.write(`chaos: ${rows.length} faults, ${totals.lost} lost, ${totals.duplicated} duplicated\n`);
  return bad.length || totals.lost || totals.duplicated ? 1 : 0;
}

let code = 1;
try {
  code = await main();
} catch (e) {
  process.stderr.write(`${e.stack ?? e}\n`);
  for (const p of procs) process.stderr.write(`--- ${p.name} (last output) ---\n${p.out.slice(-2500)}\n`);
  process.stdout.write(`chaos: ${rows.length} faults, ${totals.lost} lost, ${totals.duplicated} duplicated (run failed)\n`);
} finally {
  cleanup();
}
process.exit(code);
