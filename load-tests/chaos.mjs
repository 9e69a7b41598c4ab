// npm run test:chaos — faults during order load, on PRIVATE instances this command starts itself:
// a PostgreSQL cluster (initdb + pg_ctl, its own port and data folder under /tmp) and a
// redis-server on its own port; never the shared services. Faults: kill -9 of the server and a
// restart, a PostgreSQL restart, Redis down for 10 s, SIGSTOP of the server for 5 s. Afterwards
// every acknowledged order must be in the books (lost), no order id acknowledged twice
// (duplicated), and the trial balance exact. Loopback only; stops by itself.
// Prints a table, then `chaos: <F> faults, <L> lost, <D> duplicated`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PG_BIN = '/usr/lib/postgresql/15/bin';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(join(tmpdir(), 'kestrel-chaos-'));
const pgPort = 55000 + Math.floor(Math.random() * 900);
const redisPort = 56000 + Math.floor(Math.random() * 900);
const pgData = join(dir, 'pg');
// PostgreSQL refuses to run as root: then the cluster runs as the `postgres` user.
const asPg = (cmd, args) =>
  process.getuid?.() === 0 ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' }) : spawnSync(cmd, args, { encoding: 'utf8' });
if (process.getuid?.() === 0) spawnSync('chown', ['postgres', dir]);
const pgCtl = (...a) => asPg(`${PG_BIN}/pg_ctl`, ['-D', pgData, '-l', join(dir, 'pg.log'), ...a]);
const pgOpts = `-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=on`;

let redis;
const startRedis = () => {
  redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
};

async function main() {
  const init = asPg(`${PG_BIN}/initdb`, ['-D', pgData, '-U', 'postgres', '--auth=trust']);
  if (init.status !== 0) throw new Error(`initdb: ${init.stderr}`);
  if (pgCtl('-o', pgOpts, '-w', 'start').status !== 0) throw new Error('pg_ctl start');
  startRedis();
  process.env.BENCH_PG_SERVER = `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
  const { call, loadClient, log, makeTraders, orderMix, startStack } = await import('./lib/stack.mjs');
  const stack = await startStack({ env: { REDIS_URL: `redis://127.0.0.1:${redisPort}` } });
  let server = { pid: stack.pid, child: undefined };
  const rows = [];
  const acked = new Map();
  let running = true;
  try {
    const traders = await makeTraders(stack, 6, { 3: '10000000', 1: '1000' });
    const client = loadClient(stack.apiUrl, 6);
    const mix = orderMix(0);
    const load = Promise.all(
      traders.map(async (t) => {
        while (running) {
          try {
            const r = await client.call('POST', 'coin/trade', mix.order(), t.token);
            if (r.code === 1) acked.set(r.data.order_id, (acked.get(r.data.order_id) ?? 0) + 1);
            else await sleep(20);
          } catch {
            await sleep(100);
          }
        }
      }),
    );
    const up = async () => {
      const t0 = performance.now();
      for (let i = 0; i < 600; i++) {
        const r = await call(stack.apiUrl, 'GET', 'health').catch(() => undefined);
        if (r?.code === 1) return performance.now() - t0;
        await sleep(100);
      }
      return NaN;
    };
    const fault = async (name, act) => {
      await sleep(1500);
      const before = acked.size;
      await act();
      const ms = await up();
      rows.push({ name, recovery: ms, ackedBefore: before });
      log(`${name}: recovered in ${ms.toFixed(0)} ms`);
    };
    await fault('kill -9 server + restart', async () => {
      process.kill(server.pid, 'SIGKILL');
      await sleep(300);
      const child = spawn(process.execPath, [join(root, 'backend', 'dist', 'main.js')], { cwd: root, env: stack.env, stdio: 'ignore' });
      server = { pid: child.pid, child };
    });
    await fault('restart PostgreSQL', async () => {
      pgCtl('-m', 'fast', '-w', 'stop');
      pgCtl('-o', pgOpts, '-w', 'start');
    });
    await fault('Redis down 10 s', async () => {
      redis.kill('SIGKILL');
      await sleep(10_000);
      startRedis();
    });
    await fault('SIGSTOP server 5 s', async () => {
      process.kill(server.pid, 'SIGSTOP');
      await sleep(5000);
      process.kill(server.pid, 'SIGCONT');
    });
    await sleep(1500);
    running = false;
    await load;
    await client.close();
    await sleep(1000);
    const { sql } = await import('./lib/stack.mjs');
    const ids = [...acked.keys()];
    const found = new Set((await sql(stack.databaseUrl, 'SELECT id::text FROM orders WHERE id = ANY($1::bigint[])', [ids])).map((r) => r.id));
    const lost = ids.filter((id) => !found.has(String(id))).length;
    const duplicated = [...acked.values()].filter((n) => n > 1).length;
    const admin = (await call(stack.apiUrl, 'POST', 'admin/login', { email: stack.env.ADMIN_EMAIL, password: stack.env.ADMIN_PASSWORD })).data.token;
    let tb;
    for (let i = 0; i < 20; i++) {
      tb = await call(stack.apiUrl, 'GET', 'admin/ledger/trial-balance', undefined, admin);
      if (tb.data?.ok) break;
      await sleep(250);
    }
    process.stdout.write(`fault | count | acknowledged lost | duplicates | recovery\n`);
    for (const r of rows) process.stdout.write(`${r.name} | 1 | - | - | ${(r.recovery / 1000).toFixed(1)} s\n`);
    process.stdout.write(`acknowledged orders: ${ids.length}; trial balance ${tb.data?.ok ? 'ok' : 'NOT ok'}\n`);
    process.stdout.write(`chaos: ${rows.length} faults, ${lost} lost, ${duplicated} duplicated\n`);
    process.exitCode = lost || duplicated || !tb.data?.ok ? 1 : 0;
  } finally {
    running = false;
    if (server.child && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
    }
    await stack.stop().catch(() => undefined);
    redis.kill('SIGKILL');
    const stopped = pgCtl('-m', 'immediate', '-w', 'stop');
    if (stopped.status !== 0) log(`pg_ctl stop: ${stopped.stderr}`);
    try {
      // Whatever pg_ctl said, the private postmaster must not outlive the run.
      process.kill(Number(readFileSync(join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGKILL');
    } catch {
      /* already gone */
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  try {
    redis?.kill('SIGKILL');
    pgCtl('-m', 'immediate', '-w', 'stop');
  } catch {
    /* already down */
  }
  process.exit(1);
});
