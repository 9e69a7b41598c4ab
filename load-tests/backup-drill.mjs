// node load-tests/backup-drill.mjs — the backup and restore drill (docs/operations.md): the built
// stack on a fresh database under order load; `pg_dump` taken while the load runs; the dump
// restored into a new database; a stack started on it. The restored stack must replay its journal
// to the dump's head (it logs that batch and its replay hash), its trial balance must be exact, and
// the held totals it reports must equal those in the dump, and its replay hash must equal the one
// an independent replay gives: the dumped journal applied here, from the genesis snapshot, by the
// sequencer with the reference balance store. Loopback only; stops by itself.
// Last line: `backup drill: journal <J> restored to batch <B>, trial balance <ok|NOT ok>, replay hash <H>, independent replay <same|DIFFERENT>`.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, loadClient, log, makeTraders, orderMix, sql, startStack } from './lib/stack.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const require = createRequire(import.meta.url);
const REPLAY_LINE = /sequencer at batch (\d+) \(snapshot (\d+), (\d+) batches replayed\); replay hash ([0-9a-f]{64})/;

function withDb(url, db) {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** The dumped journal replayed here from the genesis snapshot (the built sequencer, the reference balance store): its batch and hash. */
async function replayIndependently(url) {
  const { Sequencer } = require(join(root, 'backend', 'dist', 'modules', 'engine', 'sequencer', 'sequencer.js'));
  const { ReferenceBalances } = require(join(root, 'backend', 'dist', 'modules', 'engine', 'sequencer', 'balances.js'));
  const { JOURNAL_COMMANDS } = require(join(root, 'backend', 'dist', 'modules', 'engine', 'journal-writer.js'));
  const [genesis] = await sql(url, 'SELECT state FROM sequencer_snapshots WHERE seq = 0');
  if (!genesis) throw new Error('no genesis snapshot in the dump');
  const seqr = Sequencer.restore(JSON.parse(genesis.state), (init) => new ReferenceBalances(init));
  for (let after = 0; ; ) {
    const rows = await sql(url, `SELECT j.seq::text AS seq, j.ts::text AS ts, ${JOURNAL_COMMANDS} AS commands FROM sequencer_journal j WHERE j.seq > $1 ORDER BY j.seq LIMIT 500`, [after]);
    if (!rows.length) break;
    for (const b of rows) {
      seqr.beginBatch(Number(b.seq), Number(b.ts));
      for (const c of JSON.parse(b.commands)) seqr.apply(c);
      after = Number(b.seq);
    }
  }
  return { seq: seqr.seq, hash: seqr.hash() };
}

async function main() {
  const stack = await startStack();
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-drill-'));
  const dump = join(dir, 'kestrel.dump');
  const restoredDb = `kestrel_restored_${Date.now()}`;
  const server = withDb(stack.databaseUrl, 'postgres');
  let restored;
  let failures = 0;
  try {
    const traders = await makeTraders(stack, 6, { 3: '10000000', 1: '1000' });
    const client = loadClient(stack.apiUrl, 6);
    const mix = orderMix(0.2);
    let running = true;
    let acked = 0;
    const load = Promise.all(
      traders.map(async (t) => {
        t.open = [];
        while (running) {
          const id = mix.cancelFrom(t.open);
          const r = id ? await client.call('PUT', 'coin/trade', { order_id: id }, t.token) : await client.call('POST', 'coin/trade', mix.order(), t.token);
          if (r.code === 1) acked++;
          if (!id && r.code === 1 && r.data.status === 'waiting') t.open.push(r.data.order_id);
        }
      }),
    );
    await sleep(2000);
    log(`pg_dump during load (${acked} commands acknowledged so far)`);
    const d = spawnSync('pg_dump', ['-Fc', '-f', dump, '-d', stack.databaseUrl], { encoding: 'utf8' });
    if (d.status !== 0) throw new Error(`pg_dump: ${d.stderr}`);
    await sleep(1000);
    running = false;
    await load;
    await client.close();
    log(`load stopped after ${acked} acknowledged commands`);
    await stack.stop();

    await sql(server, `CREATE DATABASE "${restoredDb}"`);
    const restoredUrl = withDb(stack.databaseUrl, restoredDb);
    const r = spawnSync('pg_restore', ['--no-owner', '-d', restoredUrl, dump], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`pg_restore: ${r.stderr}`);
    const [{ j }] = await sql(restoredUrl, 'SELECT COALESCE(MAX(seq), 0)::text AS j FROM sequencer_journal');
    const held = await sql(restoredUrl, `SELECT currency_id, SUM(available + frozen)::text AS total FROM balances WHERE account_type <> 'external' GROUP BY currency_id ORDER BY currency_id`);

    const independent = await replayIndependently(restoredUrl);

    const port = 3900 + Math.floor(Math.random() * 90);
    const env = { ...stack.env, PORT: String(port), DATABASE_URL: restoredUrl, REDIS_PREFIX: `drill:${restoredDb}:`, LOG_LEVEL: 'info' };
    let out = '';
    restored = spawn(process.execPath, [join(root, 'backend', 'dist', 'main.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    restored.stdout.on('data', (x) => (out += x));
    restored.stderr.on('data', (x) => (out += x));
    const api = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 240; i++) {
      if (await fetch(`${api}/api/settings/get`, { method: 'POST' }).then((x) => x.ok, () => false)) break;
      if (restored.exitCode !== null) throw new Error(`the restored stack exited: ${out.slice(-2000)}`);
      await sleep(250);
    }
    const admin = (await call(api, 'POST', 'admin/login', { email: stack.env.ADMIN_EMAIL, password: stack.env.ADMIN_PASSWORD })).data.token;
    let tb;
    for (let i = 0; i < 20; i++) {
      tb = await call(api, 'GET', 'admin/ledger/trial-balance', undefined, admin);
      if (tb.code === 1 && tb.data.ok) break;
      await sleep(250);
    }
    const m = REPLAY_LINE.exec(out);
    const ok = tb.code === 1 && tb.data.ok;
    if (!ok) failures++;
    for (const h of held) {
      const c = tb.data.currencies.find((x) => x.currency_id === Number(h.currency_id));
      if (!c || Number(c.held_total) !== Number(h.total)) {
        failures++;
        log(`held total of currency ${h.currency_id}: dump ${h.total}, restored stack ${c?.held_total}`);
      }
    }
    if (!m || m[1] !== j) {
      failures++;
      log(`replay line ${m ? m[0] : '(none)'}; journal head in the dump ${j}`);
    }
    const same = m?.[4] === independent.hash && independent.seq === Number(j);
    if (!same) {
      failures++;
      log(`independent replay: batch ${independent.seq}, hash ${independent.hash}; the restored stack logged: ${m?.[0] ?? '(nothing)'}`);
    }
    process.stdout.write(
      `backup drill: journal ${j} restored to batch ${m?.[1] ?? '?'}, trial balance ${ok ? 'ok' : 'NOT ok'}, replay hash ${m?.[4] ?? '?'}, independent replay ${same ? 'same' : 'DIFFERENT'}\n`,
    );
  } finally {
    if (restored && restored.exitCode === null) {
      restored.kill('SIGTERM');
      await new Promise((r) => restored.once('exit', r));
    }
    await sql(server, `DROP DATABASE IF EXISTS "${restoredDb}" WITH (FORCE)`).catch(() => undefined);
    await stack.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = failures ? 1 : 0;
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
