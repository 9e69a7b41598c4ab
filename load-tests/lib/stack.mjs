// Shared by the bench commands: start the whole stack on a fresh database (unless API_URL points
// at a running one), make funded accounts through the real API, and stop what was started.
// Everything targets loopback only.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'package.json'));
const { Client } = require('pg');
// PostgreSQL on the same machine is reached through its Unix socket when there is one: each
// statement costs the server's event loop ~30% less CPU than over loopback TCP (measured here).
const SOCKET_DIR = '/var/run/postgresql';
const SERVER =
  process.env.BENCH_PG_SERVER ??
  (existsSync(`${SOCKET_DIR}/.s.PGSQL.5432`)
    ? `postgres://postgres@${encodeURIComponent(SOCKET_DIR)}/postgres`
    : 'postgres://postgres@127.0.0.1:5432/postgres');

export const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

function withDb(url, db) {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** A probe's numeric command-line option: the number after `--<name>`, or `fallback` without one. */
export function numberArg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

export async function sql(url, text, params = []) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

/**
 * A connection of a bench's own, kept open across the run (row counts, WAL, waits, CPU probes). The
 * bench drops its database with it still open if a run fails: its error is then not a crash.
 */
export async function benchClient(url) {
  const c = new Client({ connectionString: url });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

/**
 * Rows an order writes, counted without disturbing the measured window: at its start only the
 * tables' highest keys (index lookups, on a connection opened before the window), at the end the
 * rows past them (orders by id and trades by their ledger place, so updates are not rows; klines
 * are few and counted whole). A `COUNT(*)` of every table at the window's start, on a connection
 * of its own, was a burst of PostgreSQL work in the window's first second.
 */
export async function rowCounter(url) {
  const c = await benchClient(url);
  let marks;
  return {
    async mark() {
      marks = (
        await c.query(`SELECT COALESCE((SELECT max(seq) FROM sequencer_journal), 0)::text AS journal, COALESCE((SELECT max(id) FROM ledger_entries), 0)::text AS ledger_entries,
          COALESCE((SELECT max(id) FROM orders), 0)::text AS orders, COALESCE((SELECT max(ledger_id) FROM trades), 0)::text AS trades, (SELECT COUNT(*) FROM klines)::int AS klines`)
      ).rows[0];
    },
    /** Rows written since `mark()`, by table. */
    async since() {
      const [r] = (
        await c.query(
          `SELECT (SELECT COUNT(*) FROM sequencer_journal WHERE seq > $1)::int AS journal, (SELECT COUNT(*) FROM ledger_entries WHERE id > $2)::int AS ledger_entries,
            (SELECT COUNT(*) FROM orders WHERE id > $3)::int AS orders, (SELECT COUNT(*) FROM trades WHERE ledger_id > $4)::int AS trades, (SELECT COUNT(*) FROM klines)::int - $5 AS klines`,
          [marks.journal, marks.ledger_entries, marks.orders, marks.trades, marks.klines],
        )
      ).rows;
      return r;
    },
    close: () => c.end(),
  };
}

/** Whether nothing listens on 127.0.0.1:port now. */
function portFree(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * Ports handed out by freeRange stay reserved while the process that took them lives: a file per
 * port under the temp folder, holding its pid. A fault test restarts its server on the same port
 * after kill -9, and the port is free while the new process starts up: another stack started in
 * that gap (a second jest worker's bench) took it, and CI met EADDRINUSE on the restart.
 */
const RESERVED = join(tmpdir(), 'kestrel-ports');
const mine = new Set();
function alivePid(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}
/** Takes the reservation of `port` (atomically), unless a live process holds it. */
function reserve(port) {
  mkdirSync(RESERVED, { recursive: true });
  const file = join(RESERVED, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(file, 'utf8'));
    if (holder === process.pid || (holder > 0 && alivePid(holder))) return false;
    // A dead holder's file: take it over (two takers at once: the second write wins, both may
    // think they hold it, and the port check after this still keeps one of them off).
    writeFileSync(file, String(process.pid));
  }
  mine.add(file);
  return true;
}
function releaseAll() {
  for (const file of mine) {
    try {
      if (Number(readFileSync(file, 'utf8')) === process.pid) unlinkSync(file);
    } catch {
      /* gone already */
    }
  }
  mine.clear();
}
process.on('exit', releaseAll);

/**
 * A random port in 3700–3899 with the `count` ports from it free and reserved for this process:
 * other stacks (another bench, a split stack's api processes on port + i) may be up on this
 * machine at the same time, and a health check answered by one of them would pass for ours.
 */
async function freeRange(count) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 3700 + Math.floor(Math.random() * (200 - count));
    const taken = [];
    let ok = true;
    for (let i = 0; i < count && ok; i++) {
      ok = reserve(port + i);
      if (ok) taken.push(port + i);
      ok = ok && (await portFree(port + i));
    }
    if (ok) return port;
    for (const p of taken) {
      const file = join(RESERVED, String(p));
      mine.delete(file);
      unlinkSync(file);
    }
  }
  throw new Error('no free port range in 3700–3899');
}

/**
 * A fresh database on the local server, and the environment a stack on it runs with (loopback
 * only). `ports`: how many consecutive ports from `port` the caller will listen on (each free and
 * reserved for this process); by default one, plus BENCH_API_PROCESSES for a split stack.
 */
export async function freshStackEnv({ simulator = false, env = {}, ports = Number(process.env.BENCH_API_PROCESSES ?? 0) + 1 } = {}) {
  const db = `kestrel_bench_${Date.now()}`;
  await sql(SERVER, `CREATE DATABASE "${db}"`);
  const databaseUrl = withDb(SERVER, db);
  const port = await freeRange(ports);
  const childEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `bench:${db}:`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    MARKET_SIMULATOR: simulator ? 'on' : 'off',
    ADMIN_EMAIL: 'bench@kestrel.local',
    ADMIN_PASSWORD: 'bench-admin-password',
    RATE_LIMIT_REGISTER_IP: '100000/60',
    RATE_LIMIT_CODE_IP: '100000/60',
    RATE_LIMIT_LOOKUP_IP: '100000/60',
    RATE_LIMIT_LOGIN_IP: '100000/60',
    RATE_LIMIT_UPLOAD_USER: '100000/60',
    ...env,
  };
  const dropDatabase = () => sql(SERVER, `DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`).catch(() => undefined);
  return { db, databaseUrl, port, env: childEnv, apiUrl: `http://127.0.0.1:${port}`, dropDatabase };
}

/**
 * The server's V8 flags as `npm start` and the image give them (package.json, infra/docker/Dockerfile;
 * docs/performance.md, thirty-first sitting): a 64 MB young generation, and no allocation-site
 * pretenuring.
 */
export const SERVER_NODE_ARGS = ['--max-semi-space-size=64', '--no-allocation-site-pretenuring'];

/** A bench's server: the server's flags, then the bench's own (BENCH_NODE_ARGS). */
const benchServerArgs = () => [...SERVER_NODE_ARGS, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];

/** Starts `node backend/dist/main.js` on a fresh database; returns {apiUrl, databaseUrl, stop}. */
export async function startStack({ simulator = false, env = {} } = {}) {
  if (Number(process.env.BENCH_API_PROCESSES ?? 0) > 0 && !process.env.API_URL) return startSplitStack({ apiProcesses: Number(process.env.BENCH_API_PROCESSES), simulator, env });
  if (process.env.API_URL) {
    if (!process.env.DATABASE_URL) throw new Error('with API_URL, also set DATABASE_URL (the bench reads verification codes from the outbox)');
    return { apiUrl: process.env.API_URL.replace(/\/$/, ''), databaseUrl: process.env.DATABASE_URL, stop: async () => undefined };
  }
  const { db, databaseUrl, env: childEnv, apiUrl, dropDatabase } = await freshStackEnv({ simulator, env });
  const nodeArgs = benchServerArgs();
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'backend', 'dist', 'main.js')], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 240; i++) {
    const ok = await fetch(`${apiUrl}/api/settings/get`, { method: 'POST' }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null) throw new Error('the server exited during start-up');
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`stack up at ${apiUrl} (database ${db})`);
  return {
    apiUrl,
    databaseUrl,
    env: childEnv,
    pid: child.pid,
    pids: [child.pid],
    stop: async () => {
      child.kill('SIGTERM');
      // A process ended by a signal (a fault test's kill -9) has exitCode null and signalCode set.
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
      await dropDatabase();
    },
  };
}

/**
 * One backend process of `role` from the built code on `port`, its output kept (the last
 * `keepChars`) for checks and for printing on failure; added to `procs`.
 */
export function startRoleProcess(procs, name, env, role, port, keepChars = 400_000) {
  const child = spawn(process.execPath, [...SERVER_NODE_ARGS, join(root, 'backend', 'dist', 'main.js')], {
    cwd: root,
    env: { ...env, ROLE: role, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p = { name, role, port, child, out: '', url: `http://127.0.0.1:${port}` };
  const keep = (d) => (p.out = (p.out + d.toString()).slice(-keepChars));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  procs.push(p);
  return p;
}

/** Polls `test` every 100 ms until it is true (answers the time it took) or `ms` have passed (throws). */
export async function until(what, test, ms) {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await test()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The process (from startRoleProcess) holds the sequencer's lease now, by its log. */
export const holdsLease = (p) => /sequencer lease taken/.test(p.out) && !/stepping down/.test(p.out.split(/sequencer lease taken/).pop());

/**
 * The split roles on one fresh database and Redis (BENCH_API_PROCESSES=N): one `ROLE=engine`
 * process (the sequencer, the market feed) and N `ROLE=api` processes joined by Redis Streams and
 * the Socket.IO Redis adapter, as docker-compose runs them. `apiUrls` lists the api processes (the
 * benches spread their clients over them); `pids` covers every server process.
 */
export async function startSplitStack({ apiProcesses, simulator = false, env = {} }) {
  const { db, databaseUrl, port, env: baseEnv, dropDatabase } = await freshStackEnv({ simulator, env: { ENGINE_TRANSPORT: 'redis', ...env } });
  const nodeArgs = benchServerArgs();
  const children = [];
  const start = (role, p) => {
    const child = spawn(process.execPath, [...nodeArgs, join(root, 'backend', 'dist', 'main.js')], {
      cwd: root,
      env: { ...baseEnv, ROLE: role, PORT: String(p) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(child);
    return `http://127.0.0.1:${p}`;
  };
  const up = async (url, path) => {
    for (let i = 0; i < 480; i++) {
      if (await fetch(`${url}${path}`).then((r) => r.ok, () => false)) return;
      if (children.some((c) => c.exitCode !== null)) throw new Error('a server process exited during start-up');
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${url} did not start`);
  };
  const stop = async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', r)))));
    await dropDatabase();
  };
  try {
    // The engine migrates and seeds first; the api processes start once it is up.
    await up(start('engine', port), '/api/health');
    const apiUrls = [];
    for (let i = 1; i <= apiProcesses; i++) apiUrls.push(start('api', port + i));
    await Promise.all(apiUrls.map((u) => up(u, '/api/health')));
    log(`split stack up: engine + ${apiProcesses} api at ${apiUrls.join(' ')} (database ${db})`);
    return { apiUrl: apiUrls[0], apiUrls, databaseUrl, env: baseEnv, pid: children[0].pid, pids: children.map((c) => c.pid), pidGroups: { engine: [children[0].pid], api: children.slice(1).map((c) => c.pid) }, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * A keep-alive connection pool for load loops. The load generator shares the machine's two cores
 * with the server, so it must be cheap: undici's `Pool.request` costs a fraction of `fetch`
 * (measured here: ~28,000 vs ~2,400 requests/s against the same trivial server).
 */
export function loadClient(apiUrl, connections) {
  if (Array.isArray(apiUrl)) {
    // Several api processes (the split roles): the connections spread evenly, requests in turn.
    const clients = apiUrl.map((u) => loadClient(u, Math.max(1, Math.ceil(connections / apiUrl.length))));
    let turn = 0;
    return {
      opened: () => clients.reduce((n, c) => n + c.opened(), 0),
      call: (...args) => clients[turn++ % clients.length].call(...args),
      close: () => Promise.all(clients.map((c) => c.close())),
    };
  }
  const { Pool } = require('undici');
  const pool = new Pool(apiUrl, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  // Connections the pool has opened: it closes idle ones as the server's Keep-Alive says, and opens new ones in a burst.
  let opened = 0;
  pool.on('connect', () => opened++);
  return {
    opened: () => opened,
    async call(method, path, body, token) {
      const res = await pool.request({
        path: `/api/${path}`,
        method,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(token ? { authorization: token } : {}) },
        body: body ? new URLSearchParams(body).toString() : undefined,
      });
      return res.body.json();
    },
    close: () => pool.close(),
  };
}

export async function call(apiUrl, method, path, body, token) {
  const res = await fetch(`${apiUrl}/api/${path}`, {
    method,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(token ? { authorization: token } : {}) },
    body: body ? new URLSearchParams(body).toString() : undefined,
  });
  return res.json();
}

/** Registers `count` users by e-mail through the API, sets their fund passwords and funds them (CLI, code 900). */
export async function makeTraders(stack, count, funds) {
  const users = [];
  const tag = Date.now().toString(36);
  for (let i = 0; i < count; i++) {
    const email = `bench-${tag}-${i}@kestrel.local`;
    await call(stack.apiUrl, 'POST', 'sms_mail', { email, purpose: 'register' });
    const [{ body }] = await sql(stack.databaseUrl, 'SELECT body FROM outbox WHERE recipient = $1 ORDER BY id DESC LIMIT 1', [email]);
    const code = /\d{6}/.exec(body)[0];
    const reg = await call(stack.apiUrl, 'POST', 'user/register', {
      type: 'email',
      email,
      code,
      password: 'bench-pass',
      re_password: 'bench-pass',
      agreement: '1',
    });
    if (reg.code !== 1) throw new Error(`register: ${JSON.stringify(reg)}`);
    const token = reg.data.token;
    await call(stack.apiUrl, 'POST', 'sms_mail', { purpose: 'fund_password' }, token);
    const [{ body: b2 }] = await sql(stack.databaseUrl, `SELECT body FROM outbox WHERE recipient = $1 AND purpose = 'fund_password' ORDER BY id DESC LIMIT 1`, [
      email,
    ]);
    const e = await call(stack.apiUrl, 'POST', 'user/e_pwd', { password: '246810', re_password: '246810', code: /\d{6}/.exec(b2)[0] }, token);
    if (e.code !== 1) throw new Error(`e_pwd: ${JSON.stringify(e)}`);
    users.push({ id: reg.data.user.id, token });
  }
  for (const [currency, amount] of Object.entries(funds)) {
    // Not spawnSync: the funding is applied by the exchange's outbox relay, which may run in this very process (bench:core).
    const r = await spawnAsync(
      process.execPath,
      [
        join(root, 'backend', 'dist', 'cli', 'fund.js'),
        '--users',
        users.map((u) => u.id).join(','),
        '--currency',
        currency,
        '--amount',
        amount,
        '--reason',
        'load test float',
      ],
      {
        env: { ...process.env, DATABASE_URL: stack.databaseUrl },
        encoding: 'utf8',
      },
    );
    if (r.status !== 0 || !/^funded \d+/.test(r.stdout) || /queued/.test(r.stdout)) throw new Error(`fund: ${r.stdout} ${r.stderr}`);
  }
  return users;
}

/**
 * The order mix of bench:api and bench:core, seeded (the same stream every run): a request is a
 * cancel of one of the trader's open orders (`cancelShare` of them, when it has any), else a limit
 * order around 60,000 with a ±0.5% spread of prices, so some rest and some cross and trade.
 */
export function orderMix(cancelShare) {
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return {
    /** The id of an open order to cancel now (taken out of `open`), or undefined for a new order. */
    cancelFrom: (open) => (open.length && rand() < cancelShare ? open.splice(Math.floor(rand() * open.length), 1)[0] : undefined),
    order: () => {
      const side = rand() < 0.5 ? 'buy' : 'sell';
      const price = (60000 * (1 + (rand() - 0.5) * 0.01)).toFixed(2);
      const quantity = (0.001 + Math.floor(rand() * 50) * 0.0001).toFixed(4);
      return { symbol: 'BTC/USDT', side, type: 'limit', price, quantity };
    },
  };
}

/**
 * A measured window after a warm-up: load runs until `deadline`; once `warmup` seconds have
 * passed, `onStart` runs (take the "before" readings there), then `started` is reset and
 * `recording` turns true. Await `ready` before reading the results.
 */
export function measuredWindow(warmup, seconds, onStart) {
  const w = { recording: false, started: performance.now() + warmup * 1000 };
  w.deadline = w.started + seconds * 1000;
  w.ready = new Promise((r) => setTimeout(r, warmup * 1000)).then(async () => {
    await onStart();
    w.started = performance.now();
    w.recording = true;
  });
  w.elapsed = () => (performance.now() - w.started) / 1000;
  return w;
}

/** A thread's GC pauses as `admin/engine` reports them (`gc_pauses`), in one line. */
export function gcPausesText(g) {
  const [s, m] = [g.scavenge_ms, g.mark_compact_ms];
  return `scavenges ${s.samples} (p50 ${s.p50} p99 ${s.p99} max ${s.max}), mark-compact ${m.samples} (max ${m.max}); stopped ${g.share_pct} % of the time`;
}

/**
 * `backpressure_ms` of admin/engine as the benches print it: how often, and how long, the
 * backpressure held a journal write for the projector, by the bound that held it
 * (ENGINE_PROJECT_AHEAD commands, ENGINE_PROJECT_AHEAD_MS). Every order that arrives while a write
 * is held waits with it.
 */
export function backpressureLine(b) {
  const part = (d, bound) => `${d.samples} past ${bound}${d.samples ? ` (ms p50 ${d.p50} p99 ${d.p99} max ${d.max})` : ''}`;
  return `journal writes held for the projector (backpressure): ${part(b.commands, 'ENGINE_PROJECT_AHEAD')}, ${part(b.age, 'ENGINE_PROJECT_AHEAD_MS')}`;
}

/** BENCH_TRACE=1: each second of the measured window (`[second, latency ms]` pairs) as one line, to see whether a p99 is a stall or the whole run. */
export function logTrace(trace) {
  const bySecond = new Map();
  for (const [s, ms] of trace) (bySecond.get(s) ?? bySecond.set(s, []).get(s)).push(ms);
  for (const [s, l] of [...bySecond].sort((a, b) => a[0] - b[0])) {
    l.sort((a, b) => a - b);
    log(`second ${s}: ${l.length} orders, p50 ${percentile(l, 50).toFixed(1)} p99 ${percentile(l, 99).toFixed(1)} max ${l[l.length - 1].toFixed(1)}`);
  }
}

export function percentile(sorted, p) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Basic identity verification through the API: three photos, the form, and an operator's approval. */
export async function verifyTraders(stack, users) {
  const { PNG } = require('pngjs');
  // Three pictures (one picture uploaded as several photos of one form is refused).
  const images = [170, 180, 190].map((shade) => {
    const png = new PNG({ width: 8, height: 8 });
    png.data.fill(shade);
    return PNG.sync.write(png);
  });
  const admin = await call(stack.apiUrl, 'POST', 'admin/login', {
    email: process.env.ADMIN_EMAIL ?? 'bench@kestrel.local',
    password: process.env.ADMIN_PASSWORD ?? 'bench-admin-password',
  });
  if (admin.code !== 1) throw new Error(`admin login: ${JSON.stringify(admin)}`);
  for (const u of users) {
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const form = new FormData();
      form.append('file', new Blob([images[i]], { type: 'image/png' }), 'id.png');
      const r = await (await fetch(`${stack.apiUrl}/api/upload/image`, { method: 'POST', headers: { authorization: u.token }, body: form })).json();
      if (r.code !== 1) throw new Error(`upload: ${JSON.stringify(r)}`);
      ids.push(r.data.id);
    }
    const sent = await call(
      stack.apiUrl,
      'POST',
      'user/real_name',
      { country: 'PT', name: 'Bench Trader', id_number: `BENCH-${u.id}`, address: 'Loopback 1', front_image: ids[0], back_image: ids[1], hand_image: ids[2] },
      u.token,
    );
    if (sent.code !== 1) throw new Error(`real_name: ${JSON.stringify(sent)}`);
    const list = await (
      await fetch(`${stack.apiUrl}/api/admin/real_name?status=review&user_id=${u.id}`, { headers: { authorization: admin.data.token } })
    ).json();
    const ok = await call(stack.apiUrl, 'POST', `admin/real_name/${list.data.items[0].id}/approve`, {}, admin.data.token);
    if (ok.code !== 1) throw new Error(`approve: ${JSON.stringify(ok)}`);
  }
}

/** utime and stime of a `/proc/…/stat` line, in clock ticks (10 ms). */
function statTicks(stat) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return { user, system, used: user + system };
}

/**
 * A connection to `databaseUrl` and what its backend's CPU has been so far (`cpu()`: user and
 * system µs, from /proc's clock ticks of 10 ms): for probes of what statements cost PostgreSQL.
 */
export async function backendProbe(databaseUrl) {
  const client = await benchClient(databaseUrl);
  const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows;
  const cpu = () => {
    const t = cpuTimes({ backend: [pid] }).get(pid);
    return { user: t.user * 10_000, system: t.system * 10_000 };
  };
  return { client, cpu };
}

/**
 * CPU time per process group from /proc (Linux), to show where the machine's two cores went
 * during a load window: `const t = cpuTimes(pids); …; cpuReport(t, cpuTimes(pids), seconds)`.
 * `pids` names our own processes ({server: [pid], generator: [process.pid]}); PostgreSQL and
 * Redis are found by command name.
 */
export function cpuTimes(pids) {
  const ticks = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const pid = Number(entry);
    const group =
      Object.entries(pids).find(([, list]) => list.includes(pid))?.[0] ??
      (comm.startsWith('postgres') ? 'postgres' : comm.startsWith('redis') ? 'redis' : undefined);
    if (group) ticks.set(pid, { group, ...statTicks(stat) });
  }
  ticks.machine = machineTicks();
  return ticks;
}

/**
 * The whole machine's idle and steal ticks (`/proc/stat`'s first line). Steal is the time the
 * hypervisor gave our virtual cores to someone else: on a day with much of it, every latency tail
 * (the do-nothing floor's too) is the host's, not the code's, so the reports print it beside the figures.
 */
function machineTicks() {
  const [, user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return { all: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, steal };
}

/** CPU seconds per group between two `cpuTimes` readings (a process that exited in between is not counted). */
function cpuSeconds(before, after) {
  const hz = 100;
  const used = {};
  for (const [pid, { group, used: t }] of after) used[group] = (used[group] ?? 0) + (t - (before.get(pid)?.used ?? 0)) / hz;
  return used;
}

/** A steal share (%) from which the benches warn that the host, not only the code, shaped the figures. */
const STEAL_WARNING = 5;

/**
 * Cores used per group between two `cpuTimes` readings (a process that exited in between is not
 * counted); with `units` (e.g. acknowledged orders), also each group's CPU milliseconds per unit;
 * then the machine's idle and steal shares (and a warning on stderr from STEAL_WARNING % of steal).
 */
export function cpuReport(before, after, seconds, units) {
  const steal = machineShare(before, after, 'steal');
  if (steal >= STEAL_WARNING) log(`warning: the host took ${steal.toFixed(0)} % of the cores (steal) during the window: latencies and rates then measure the host as much as the code; compare runs at like steal`);
  const groups = Object.entries(cpuSeconds(before, after))
    .map(([g, t]) => `${g} ${(t / seconds).toFixed(2)}` + (units ? ` (${((t * 1000) / units).toFixed(3)} ms/order)` : ''))
    .join(', ');
  return `${groups}; machine idle ${machineShare(before, after, 'idle').toFixed(0)} %, steal ${steal.toFixed(0)} %`;
}

/** The machine's idle or steal share (%) between two `cpuTimes` readings. */
export function machineShare(before, after, kind) {
  const all = after.machine.all - before.machine.all;
  return (100 * (after.machine[kind] - before.machine[kind])) / (all || 1);
}

/** The CPU milliseconds per unit of these groups together, between two `cpuTimes` readings. */
export function cpuMsPer(before, after, groups, units) {
  const used = cpuSeconds(before, after);
  return (groups.reduce((sum, g) => sum + (used[g] ?? 0), 0) * 1000) / units;
}

/** The groups a `cpuTimes` reading counted (the given processes' groups, PostgreSQL's, Redis's): the whole stack. */
export function cpuGroups(reading) {
  return [...new Set([...reading.values()].map((t) => t.group))];
}

/** Where `npm run bench:floor` leaves its figures for the benchmarks run after it (same machine, same sitting). */
const FLOOR_FILE = join(tmpdir(), 'kestrel-bench-floor.json');

/**
 * bench:floor's result: F (orders/s), its do-nothing server's CPU ms per order (bare HTTP), its
 * generator's CPU ms per order (the unit of `inFloorUnits`) and the machine's steal share (%) while it ran.
 */
export function saveFloor(ordersPerSecond, serverMsPerOrder, generatorMsPerOrder, stealPercent) {
  writeFileSync(FLOOR_FILE, JSON.stringify({ ordersPerSecond, serverMsPerOrder, generatorMsPerOrder, stealPercent, at: Date.now() }));
}

/** The last bench:floor's figures, with how a budget line names them; undefined before any. */
function lastFloor() {
  let floor;
  try {
    floor = JSON.parse(readFileSync(FLOOR_FILE, 'utf8'));
  } catch {
    return undefined;
  }
  const minutes = Math.round((Date.now() - floor.at) / 60_000);
  const steal = floor.stealPercent === undefined ? 'unknown' : `${floor.stealPercent.toFixed(0)} %`;
  return { ...floor, named: `that floor: F = ${floor.ordersPerSecond} at ${steal} steal, ${minutes} min ago` };
}

/**
 * The budget line "server CPU beyond bare HTTP": the server's CPU ms per order less the last
 * bench:floor's do-nothing server's (it parses the same requests and answers each with an
 * envelope, nothing else), with how old that floor is.
 */
export function beyondBareHttp(serverMsPerOrder) {
  const floor = lastFloor();
  if (!floor) return 'server CPU beyond bare HTTP: unknown (run `npm run bench:floor` first: its do-nothing server is the bare HTTP cost)';
  return (
    `server CPU beyond bare HTTP: ${(serverMsPerOrder - floor.serverMsPerOrder).toFixed(3)} ms/order ` +
    `(server ${serverMsPerOrder.toFixed(3)} less bench:floor's do-nothing server ${floor.serverMsPerOrder.toFixed(3)}; ${floor.named})`
  );
}

/**
 * The budget line "stack CPU in floor-generator units": the whole stack's CPU ms per order (server,
 * PostgreSQL, Redis, generator) divided by the last bench:floor's generator's. F is the ~1.03 cores
 * that generator takes divided by its CPU per order, so this multiple K takes the day's speed out of
 * a run: a load of s × F keeps about s × 1.03 × K cores busy (docs/performance.md, fortieth sitting).
 */
export function inFloorUnits(stackMsPerOrder) {
  const floor = lastFloor();
  if (!floor?.generatorMsPerOrder) return 'stack CPU in floor-generator units: unknown (run `npm run bench:floor` first: its generator is the unit)';
  return (
    `stack CPU in floor-generator units: K = ${(stackMsPerOrder / floor.generatorMsPerOrder).toFixed(2)} ` +
    `(stack ${stackMsPerOrder.toFixed(3)} ms/order over bench:floor's generator ${floor.generatorMsPerOrder.toFixed(3)}; ${floor.named})`
  );
}

/** CPU clock ticks of each thread of one process (from `/proc/<pid>/task/<tid>/stat`), by thread id. */
export function threadTimes(pid) {
  const ticks = new Map();
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return ticks;
  }
  for (const tid of tasks) {
    try {
      ticks.set(Number(tid), statTicks(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')).used);
    } catch {
      // the thread ended
    }
  }
  return ticks;
}

/**
 * One process's CPU by thread between two `threadTimes` readings: its main thread, its busiest
 * other thread (in the server, the projection replica's) and the rest (V8's and libuv's helpers),
 * as cores and CPU milliseconds per unit.
 */
export function threadReport(pid, before, after, seconds, units) {
  const hz = 100;
  const used = [...after].map(([tid, t]) => [tid, t - (before.get(tid) ?? 0)]);
  const main = used.find(([tid]) => tid === pid)?.[1] ?? 0;
  const others = used.filter(([tid]) => tid !== pid).sort((a, b) => b[1] - a[1]);
  const busiest = others[0]?.[1] ?? 0;
  const rest = others.slice(1).reduce((a, [, t]) => a + t, 0);
  const part = (name, t) => `${name} ${(t / hz / seconds).toFixed(2)} (${(((t / hz) * 1000) / units).toFixed(3)} ms/order)`;
  return [part('main', main), part('busiest other', busiest), part('rest', rest)].join(', ');
}

/** spawnSync's answer ({status, stdout, stderr}) without blocking the event loop. */
function spawnAsync(cmd, args, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
