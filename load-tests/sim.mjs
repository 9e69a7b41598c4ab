// npm run sim -- --seed S --ops N [--users U] [--check-every K] [--concurrency C] [--snapshot-every M]
// Whole-venue simulation (issue "Reliability and security suite", item 1): simulated users
// registered and funded through the real API do everything the product offers (spot orders and
// cancels, identity verification, deposits, withdrawals, transfers between accounts, flash
// exchange, contracts, options, wealth, IEO subscriptions, loans, NFT, referral registrations),
// while operators approve and reject at random, on the built stack (a fresh database, loopback
// only). Every choice comes from a seeded PRNG (mulberry32, as backend/src/modules/simulator/prng.ts):
// the plan (kind, user and a fixed number of draws per operation) is drawn up front, so a seed
// replays the same stream of requests; what a draw selects among the live records (an open order,
// a pending deposit) depends on the answers so far.
//
// After every K operations and at the end, once the in-flight requests are answered: the
// operator's trial balance (GET admin/ledger/trial-balance: every currency balanced, no negative
// account of any owner, every balance equal to the sum of its ledger entries) and, read directly,
// every user account whose balance differs from the sum of its ledger entries or is negative
// (named in the log). A check is retried for a few seconds (the projection of the last
// acknowledged commands may still be under way). Then the replay check: the sequencer journal
// replayed here, independently (the built Sequencer from the genesis snapshot with a balance store
// of the sim's own, as backend/test/crash.spec.ts), must give the state hash the engine stored with
// each snapshot it passes (ENGINE_SNAPSHOT_EVERY=M, 500 commands by default), and at the projector's watermark
// the projected sequencer accounts and live orders must equal the replayed state. An answer
// that is not a clear business code (no envelope, 401 on a valid token, 5xx, 9000) also counts as a
// discrepancy, and so does a record left half done (an unapplied sequencer outbox command, a
// withdrawal still submitting, an NFT sale pending, a loan disbursing, a balance repayment pending
// 30 s on; an option undelivered 30 s after its time; an IEO project unsettled 60 s after its
// end). SIM_DEBUG=1 logs the replay's refused postings and, at a hash mismatch, the differing
// accounts and the last journal batches.
// Prints the per-kind table (kind, sent, ok, refused by code) on stderr, then the last line
// `sim: <ops> ops, <D> discrepancies, seed <S>`.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, loadClient, log, makeTraders, sql, startStack } from './lib/stack.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
// The independent replay: the built sequencer restored from the genesis snapshot with a balance store
// of our own (SimBalances, below), fed the journal here, in this process (as backend/test/crash.spec.ts).
const { Sequencer } = require(join(root, 'backend', 'dist', 'modules', 'engine', 'sequencer', 'sequencer.js'));
const { accountKey, SEQUENCER_ACCOUNT_TYPES } = require(join(root, 'backend', 'dist', 'modules', 'engine', 'sequencer', 'balances.js'));
const { JOURNAL_COMMANDS } = require(join(root, 'backend', 'dist', 'modules', 'engine', 'journal-writer.js'));

/**
 * The replay's balance store, written here rather than taken from the engine: a map of account →
 * {available, frozen}, all or nothing, refusing what would go negative. (The engine's own
 * ReferenceBalances sums its whole history on every read, so a 100,000-operation replay would be
 * quadratic.)
 */
class SimBalances {
  constructor(initial = []) {
    this.map = new Map();
    for (const [key, b] of initial) this.map.set(key, { available: b.available, frozen: b.frozen });
  }
  get(key) {
    const b = this.map.get(key);
    return b ? { available: b.available, frozen: b.frozen } : { available: 0n, frozen: 0n };
  }
  apply(deltas) {
    const next = new Map();
    for (const d of deltas) {
      const b = next.get(d.key) ?? this.get(d.key);
      next.set(d.key, { available: b.available + d.available, frozen: b.frozen + d.frozen });
    }
    for (const b of next.values()) if (b.available < 0n || b.frozen < 0n) return false;
    for (const [k, b] of next) this.map.set(k, b);
    return true;
  }
  entries() {
    return [...this.map.keys()].sort().map((k) => [k, this.get(k)]);
  }
}
const { units } = require(join(root, 'backend', 'dist', 'infra', 'money.js'));
const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const SEED = Number(arg('seed', String(Date.now() % 1_000_000)));
const OPS = Number(arg('ops', '2000'));
const USERS = Number(arg('users', '20'));
const CHECK_EVERY = Number(arg('check-every', String(Math.max(500, Math.floor(OPS / 10)))));
const CONCURRENCY = Number(arg('concurrency', '16'));
const SNAPSHOT_EVERY = arg('snapshot-every', '500'); // engine snapshots (commands), each one hash compared

const USDT = 3;
const BTC = 1;
const FUND_PASSWORD = '246810';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const HOT_WALLET = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const ACCOUNTS = ['coin', 'lever', 'option', 'trust'];
const DRAWS = 6; // random numbers drawn per operation, whatever its kind

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = mulberry32(SEED);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pick = (list, x) => list[Math.floor(x * list.length)];
const amount = (x, lo, hi, dp = 2) => (lo + x * (hi - lo)).toFixed(dp);

let pictures = 0;
/** A new picture each call (the first pixel counts them): one picture uploaded as several photos of one form is refused. */
function pngBytes() {
  const { PNG } = require('pngjs');
  const png = new PNG({ width: 8, height: 8 });
  png.data.fill(180);
  pictures++;
  png.data[0] = pictures & 255;
  png.data[1] = (pictures >> 8) & 255;
  png.data[2] = (pictures >> 16) & 255;
  return PNG.sync.write(png);
}
async function upload(apiUrl, path, token) {
  const form = new FormData();
  form.append('file', new Blob([pngBytes()], { type: 'image/png' }), 'id.png');
  const r = await (await fetch(`${apiUrl}/api/${path}`, { method: 'POST', headers: { authorization: token }, body: form })).json();
  if (r.code !== 1) throw new Error(`${path}: ${JSON.stringify(r)}`);
  return r.data.id;
}
const lastCode = async (db, email, purpose) =>
  /\d{6}/.exec((await sql(db, 'SELECT body FROM outbox WHERE recipient = $1 AND purpose = $2 ORDER BY id DESC LIMIT 1', [email, purpose]))[0].body)[0];

async function main() {
  log(`sim: seed ${SEED}, ${OPS} ops, ${USERS} users`);
  const stack = await startStack({
    // Engine snapshots every M commands, so each check has recent engine hashes to compare with the independent replay.
    env: { RATE_LIMIT_WITHDRAW_USER: '1000000/60', RATE_LIMIT_FLASH_USER: '1000000/60', RATE_LIMIT_HELP_USER: '1000000/60', RATE_LIMIT_CODE_TARGET: '100000/60', RATE_LIMIT_FUND_PASSWORD: '100000/60', ENGINE_SNAPSHOT_EVERY: SNAPSHOT_EVERY },
  });
  const api = stack.apiUrl;
  // Interrupted (Ctrl-C, a timeout): stop the server and drop the database before leaving.
  for (const sig of ['SIGINT', 'SIGTERM'])
    process.once(sig, () => {
      log(`${sig}: stopping the stack`);
      stack.stop().finally(() => process.exit(1));
    });
  let discrepancies = 0;
  let done = 0;
  const stats = new Map(); // kind → {sent, ok, refused: Map(code → n)}
  const started = performance.now();
  try {
    const admin = (await call(api, 'POST', 'admin/login', { email: stack.env.ADMIN_EMAIL, password: stack.env.ADMIN_PASSWORD })).data.token;
    const client = loadClient(stack.apiUrl, CONCURRENCY);
    const req = (method, path, body, token) => client.call(method, path, body, token);
    const get = (path, query, token) => req('GET', `${path}?${new URLSearchParams(query ?? {}).toString()}`, undefined, token);
    const must = (r, what) => {
      if (r?.code !== 1) throw new Error(`${what}: ${JSON.stringify(r)}`);
      return r.data;
    };

    // Operators: the USDT TRC20 deposit address, the lending pool, an NFT collection with items on sale.
    const coins = must(await get('admin/coins', {}, admin), 'admin/coins');
    const trc = coins.find((c) => c.currency_id === USDT).chains.find((c) => c.chain === 'TRC20');
    must(await req('POST', `admin/chains/${trc.id}`, { deposit_address: HOT_WALLET, reason: 'sim hot wallet' }, admin), 'chain');
    must(await req('POST', 'admin/loan/pool/fund', { currency_id: USDT, amount: '10000000', reason: 'sim lending pool' }, admin), 'pool');
    const collection = must(await req('POST', 'admin/nft/collections', { name: `Sim ${SEED}`, description: 'sim', fee_rate: '0.025', reason: 'sim' }, admin), 'collection');
    const nftItems = [];
    for (let i = 0; i < 40; i++) {
      const image = await upload(api, 'admin/nft/images', admin);
      const it = must(
        await req('POST', `admin/nft/collections/${collection.id}/items`, { name: `Sim #${i}`, description: 'sim', image_id: image, price: String(20 + i * 5), reason: 'sim mint' }, admin),
        'mint',
      );
      nftItems.push({ id: it.id, owner: null });
    }
    const periods = must(await get('microtrade/seconds'), 'periods').filter((p) => p.enabled !== false);
    const wealth = [...must(await get('lh/deposit/config', { type: 1 }), 'wealth 1'), ...must(await get('lh/deposit/config', { type: 2 }), 'wealth 2')];
    const loanProduct = must(await get('borrow/list'), 'loans').items[0];
    const ieo = []; // projects the operators created: {id, ends}
    let ieoCount = 0;
    const newProject = async (x, windowMs) => {
      const now = Date.now();
      const n = ++ieoCount;
      const r = await req(
        'POST',
        'admin/ieo',
        { symbol: `SIM${SEED % 1000}X${n}`.slice(0, 12), name: `Sim coin ${n}`, decimals: 2, price: '0.5', supply: String(2000 + Math.floor(x * 20000)), start_at: new Date(now - 1000).toISOString(), end_at: new Date(now + windowMs).toISOString(), min_qty: '10', max_qty: '2000', website: 'https://example.org', white_paper: 'https://example.org/paper.pdf', reason: 'sim listing' },
        admin,
      );
      if (r.code === 1) ieo.push({ id: r.data.id, ends: Date.parse(r.data.end_at) });
      return r;
    };
    must(await newProject(0.5, 30_000), 'first IEO project');

    // Users: registered, fund-passworded and funded (makeTraders), then three photos each and a withdrawal address.
    const setupUser = async (u) => {
      u.images = [];
      for (let i = 0; i < 3; i++) u.images.push(await upload(api, 'upload/image', u.token));
      Object.assign(u, { open: [], positions: [], options: 0, wealth: [], loans: [], verified: false, invite: undefined });
      u.email = u.email ?? must(await get('user/center', {}, u.token), 'center').email;
      await req('POST', 'sms_mail', { purpose: 'address' }, u.token);
      const a = await req('POST', 'wallet/addaddress', { currency_id: USDT, chain: 'TRC20', address: TRON, password: FUND_PASSWORD, code: await lastCode(stack.databaseUrl, u.email, 'address') }, u.token);
      u.address = must(a, 'addaddress').id;
      return u;
    };
    const traders = await makeTraders(stack, USERS, { 3: '1000000', 1: '100' });
    for (const u of traders) {
      await setupUser(u);
      // Part of the float in each of the other accounts, so contracts, options and wealth start at once (transfers move more later).
      for (const to of ['lever', 'option', 'trust']) must(await req('POST', 'wallet/change', { from: 'coin', to, currency_id: USDT, amount: '20000' }, u.token), 'transfer');
    }
    log(`setup: ${traders.length} users, ${nftItems.length} NFT items, ${wealth.length} wealth products, ${periods.length} option periods (${((performance.now() - started) / 1000).toFixed(1)} s)`);

    // Replay check: the journal replayed here, batch by batch, from the genesis snapshot. At every
    // engine snapshot passed on the way, the state hash must equal the one the engine stored; at the
    // projector's watermark (read in one repeatable-read transaction with the projection), the
    // sequencer's accounts and the live orders must equal the replayed state.
    const { Client } = require('pg');
    let replay;
    let snapshotsCompared = 0;
    const replayTo = async (pg, target, snapshots) => {
      while (replay.seq < target) {
        const rows = (
          await pg.query(`SELECT seq::text AS seq, ts::text AS ts, ${JOURNAL_COMMANDS} AS commands FROM sequencer_journal j WHERE j.seq > $1 AND j.seq <= $2 ORDER BY j.seq LIMIT 2000`, [replay.seq, target])
        ).rows;
        if (!rows.length || Number(rows[0].seq) !== replay.seq + 1) return [`journal gap after batch ${replay.seq}`];
        const bad = [];
        for (const b of rows) {
          replay.beginBatch(Number(b.seq), Number(b.ts));
          for (const c of JSON.parse(b.commands)) {
            const out = replay.apply(c);
            if (process.env.SIM_DEBUG && c.t === 'post' && out?.code !== 'OK') log(`debug replay refused ${c.commandId} at ${b.seq}: ${JSON.stringify(out)} ${JSON.stringify(c.legs).slice(0, 400)}`);
          }
          const snap = snapshots.get(replay.seq);
          if (snap) {
            snapshotsCompared++;
            const mine = replay.hash();
            if (mine !== snap) {
              bad.push(`replay hash at batch ${replay.seq}: engine ${snap.slice(0, 16)}…, independent ${mine.slice(0, 16)}…`);
              if (process.env.SIM_DEBUG) {
                const state = JSON.parse((await pg.query('SELECT state FROM sequencer_snapshots WHERE seq = $1', [replay.seq])).rows[0].state);
                const m = replay.snapshot();
                const eb = new Map(state.balances.map(([k, a, f]) => [k, `${a} ${f}`]));
                for (const [k, a, f] of m.balances) if (eb.get(k) !== `${a} ${f}`) log(`debug ${k}: engine ${eb.get(k)}, replay ${a} ${f}`);
                for (const key of Object.keys(state)) if (JSON.stringify(state[key]) !== JSON.stringify(m[key])) log(`debug field ${key} differs`);
                const prev = (await pg.query(`SELECT seq, ${JOURNAL_COMMANDS} AS commands FROM sequencer_journal WHERE seq > $1 AND seq <= $2 ORDER BY seq`, [replay.seq - 60, replay.seq])).rows;
                log(`debug journal: ${JSON.stringify(prev).slice(0, 6000)}`);
                return bad;
              }
            }
          }
        }
        if (bad.length) return bad;
      }
      return [];
    };
    const replayCheck = async () => {
      const pg = new Client({ connectionString: stack.databaseUrl });
      await pg.connect();
      try {
        if (!replay) {
          const [genesis] = (await pg.query('SELECT state FROM sequencer_snapshots WHERE seq = 0')).rows;
          replay = Sequencer.restore(JSON.parse(genesis.state), (init) => new SimBalances(init));
        }
        await pg.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        const [{ p }] = (await pg.query('SELECT seq::text AS p FROM sequencer_projection WHERE id = 1')).rows;
        const balances = (
          await pg.query('SELECT owner_type, owner_id, account_type, currency_id, available::text, frozen::text FROM balances WHERE account_type = ANY($1)', [[...SEQUENCER_ACCOUNT_TYPES]])
        ).rows;
        const waiting = (await pg.query(`SELECT id::text, frozen_left::text FROM orders WHERE status = 'waiting' ORDER BY id`)).rows;
        const snapshots = new Map((await pg.query('SELECT seq::int AS seq, hash FROM sequencer_snapshots WHERE seq > 0')).rows.map((r) => [r.seq, r.hash]));
        await pg.query('COMMIT');
        const bad = await replayTo(pg, Number(p), snapshots);
        if (bad.length || replay.seq !== Number(p)) return bad.length ? bad : [`replay stopped at ${replay.seq}, watermark ${p}`];
        const state = replay.snapshot();
        const nonZero = (rows) => rows.filter(([, a, f]) => a !== 0n || f !== 0n).map(([k, a, f]) => `${k} ${a} ${f}`).sort();
        const db = nonZero(balances.map((r) => [accountKey({ ownerType: r.owner_type, ownerId: r.owner_id, accountType: r.account_type, currencyId: r.currency_id }), units(r.available), units(r.frozen)]));
        const mine = nonZero(state.balances.map(([k, a, f]) => [k, BigInt(a), BigInt(f)]));
        const dbSet = new Set(db);
        const mineSet = new Set(mine);
        const onlyDb = db.filter((x) => !mineSet.has(x)).map((x) => `projection ${x}`);
        const onlyReplay = mine.filter((x) => !dbSet.has(x)).map((x) => `replay ${x}`);
        const diff = [`${onlyDb.length} projection-only, ${onlyReplay.length} replay-only`, ...onlyDb.slice(0, 3), ...onlyReplay.slice(0, 3)].slice(onlyDb.length + onlyReplay.length ? 0 : 1);
        const dbOrders = waiting.map((o) => `${o.id} ${units(o.frozen_left)}`);
        const replayOrders = new Set(state.orders.map((o) => `${o.id} ${o.frozenLeft}`));
        const dbOrderSet = new Set(dbOrders);
        const orderDiff = [...dbOrders.filter((x) => !replayOrders.has(x)).map((x) => `projection order ${x}`), ...[...replayOrders].filter((x) => !dbOrderSet.has(x)).map((x) => `replay order ${x}`)];
        if (orderDiff.length) diff.push(`live orders differ: ${orderDiff.slice(0, 6).join(', ')}`);
        return diff.length ? [`projection at batch ${p} differs from the replay: ${diff.join('; ')}`] : [];
      } finally {
        await pg.end();
      }
    };

    const check = async (label) => {
      let last;
      let users = [];
      for (let attempt = 0; attempt < 20; attempt++) {
        last = await call(api, 'GET', 'admin/ledger/trial-balance', undefined, admin);
        users = await sql(
          stack.databaseUrl,
          `SELECT b.owner_id, b.account_type, b.currency_id, b.available::text, b.frozen::text, e.a::text AS ledger_available, e.f::text AS ledger_frozen
           FROM balances b
           LEFT JOIN (SELECT owner_id, account_type, currency_id, SUM(available_delta) AS a, SUM(frozen_delta) AS f
                      FROM ledger WHERE owner_type = 'user' GROUP BY 1, 2, 3) e
             ON b.owner_id = e.owner_id AND b.account_type = e.account_type AND b.currency_id = e.currency_id
           WHERE b.owner_type = 'user' AND (b.available < 0 OR b.frozen < 0 OR b.available <> COALESCE(e.a, 0) OR b.frozen <> COALESCE(e.f, 0))`,
        );
        if (last.code === 1 && last.data.ok && users.length === 0) return attempt + 1;
        await sleep(250);
      }
      const bad = (last.data?.currencies ?? []).filter((c) => !c.balanced || c.negative_accounts || c.projection_mismatches);
      const n = Math.max(bad.length + users.length, 1);
      discrepancies += n;
      log(`check ${label}: NOT exact (${n}) trial balance ${JSON.stringify(bad.length ? bad : last.code === 1 ? 'ok' : last)}; user accounts ${JSON.stringify(users.slice(0, 10))}`);
    };
    // Nothing left half done: records in a transient state well past the time their worker takes.
    const stuck = async () => {
      const [r] = await sql(
        stack.databaseUrl,
        `SELECT (SELECT COUNT(*) FROM sequencer_outbox WHERE applied_seq IS NULL AND created_at < now() - interval '30 seconds')::int AS outbox_unapplied,
                (SELECT COUNT(*) FROM withdrawals WHERE status = 'submitting' AND created_at < now() - interval '30 seconds')::int AS withdrawals_submitting,
                (SELECT COUNT(*) FROM nft_sales WHERE status = 'pending' AND created_at < now() - interval '30 seconds')::int AS nft_sales_pending,
                (SELECT COUNT(*) FROM loan_orders WHERE status = 'disbursing' AND reviewed_at < now() - interval '30 seconds')::int AS loans_disbursing,
                (SELECT COUNT(*) FROM loan_repayments WHERE kind = 'balance' AND status = 'pending' AND created_at < now() - interval '30 seconds')::int AS repayments_pending,
                (SELECT COUNT(*) FROM option_orders WHERE status = 'pending' AND deliver_at < now() - interval '30 seconds')::int AS options_undelivered,
                (SELECT COUNT(*) FROM ieo_projects WHERE status <> 'distributed' AND end_at < now() - interval '60 seconds')::int AS ieo_unsettled`,
      );
      return Object.entries(r).filter(([, n]) => n > 0);
    };
    const checkAll = async (label) => {
      const t0 = performance.now();
      const attempts = await check(label);
      const t1 = performance.now();
      let left = [];
      for (let attempt = 0; attempt < 20; attempt++) {
        left = await stuck();
        if (!left.length) break;
        await sleep(500);
      }
      discrepancies += left.length;
      if (left.length) log(`check ${label}: left half done ${JSON.stringify(Object.fromEntries(left))}`);
      const t2 = performance.now();
      const bad = await replayCheck().catch((e) => [`replay check failed: ${e.message}`]);
      discrepancies += bad.length;
      for (const b of bad) log(`check ${label}: ${b}`);
      return `balances ${((t1 - t0) / 1000).toFixed(1)} s (${attempts ?? 'all'} attempts), half-done ${((t2 - t1) / 1000).toFixed(1)} s, replay ${((performance.now() - t2) / 1000).toFixed(1)} s`;
    };

    // Operator decisions: the review queue of a record kind, one record picked by the draw, approved or rejected by it.
    const decide = async (x, y, list, query, base, approveBody, rejectReason) => {
      const page = await get(list, { ...query, limit: 20 }, admin);
      const items = page.data?.items ?? [];
      if (!items.length) return { code: 'idle' };
      const rec = pick(items, x);
      return y < 0.75 ? req('POST', `${base}/${rec.id}/approve`, approveBody, admin) : req('POST', `${base}/${rec.id}/reject`, { reason: rejectReason }, admin);
    };
    const register = async (inviteCode) => {
      const email = `sim-${SEED}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e9)}@kestrel.local`;
      await req('POST', 'sms_mail', { email, purpose: 'register' });
      const code = await lastCode(stack.databaseUrl, email, 'register');
      const r = await req('POST', 'user/register', { type: 'email', email, code, password: 'sim-pass', re_password: 'sim-pass', agreement: '1', invite_code: inviteCode });
      if (r.code !== 1) return r;
      const u = { id: r.data.user.id, token: r.data.token, email };
      await req('POST', 'sms_mail', { purpose: 'fund_password' }, u.token);
      must(await req('POST', 'user/e_pwd', { password: FUND_PASSWORD, re_password: FUND_PASSWORD, code: await lastCode(stack.databaseUrl, email, 'fund_password') }, u.token), 'e_pwd');
      traders.push(await setupUser(u));
      return r;
    };
    const mark = () => 60000; // the spot prices stay within ±0.5% of 60,000 (limit prices drawn around it)

    // The mix: [kind, weight, function(user, draws)] → the API's answer (envelope), or {code: 'idle'} when there is nothing to act on.
    const KINDS = [
      ['spot_limit', 26, async (u, [a, b, c]) => {
        const r = await req('POST', 'coin/trade', { symbol: 'BTC/USDT', side: a < 0.5 ? 'buy' : 'sell', type: 'limit', price: (60000 * (1 + (b - 0.5) * 0.01)).toFixed(2), quantity: (0.001 + Math.floor(c * 50) * 0.0001).toFixed(4) }, u.token);
        if (r.code === 1 && r.data.status === 'waiting') u.open.push(r.data.order_id);
        return r;
      }],
      // A market buy by quantity names the worst price it accepts (2102 otherwise); a market sell may.
      ['spot_market', 3, (u, [a, b]) => req('POST', 'coin/trade', { symbol: 'BTC/USDT', side: a < 0.5 ? 'buy' : 'sell', type: 'market', quantity: (0.001 + Math.floor(b * 20) * 0.0001).toFixed(4), ...(a < 0.5 ? { price: '60600' } : {}) }, u.token)],
      ['spot_cancel', 10, async (u, [a]) => (u.open.length ? req('PUT', 'coin/trade', { order_id: u.open.splice(Math.floor(a * u.open.length), 1)[0] }, u.token) : { code: 'idle' })],
      ['kyc_submit', 2, (u, [a]) =>
        req('POST', 'user/real_name', { country: 'PT', name: 'Sim Trader', id_number: `SIM-${u.id}-${Math.floor(a * 1000)}`, address: 'Loopback 1', front_image: u.images[0], back_image: u.images[1], hand_image: u.images[2] }, u.token)],
      ['kyc_decide', 2, (u, [a, b]) => decide(a, b, 'admin/real_name', { status: 'review' }, 'admin/real_name', {}, 'The photo is not readable')],
      // Each report with the picture of its own transfer (an image backs one report: 2303).
      ['deposit', 4, async (u, [a]) => req('POST', 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount: amount(a, 5, 3000), image_id: await upload(api, 'upload/image', u.token) }, u.token)],
      ['deposit_decide', 4, (u, [a, b]) => decide(a, b, 'admin/deposits', { status: 'review' }, 'admin/deposits', { reason: 'seen on chain' }, 'No such transfer received')],
      ['withdraw', 3, (u, [a]) => req('POST', 'wallet/out', { address_id: u.address, amount: amount(a, 10, 900), password: FUND_PASSWORD }, u.token)],
      ['withdraw_decide', 3, (u, [a, b]) => decide(a, b, 'admin/withdrawals', { status: 'review' }, 'admin/withdrawals', { tx_hash: `sim${a.toString(16).slice(2, 12)}`, reason: 'paid out' }, 'Address under review')],
      ['transfer', 7, (u, [a, b, c]) => {
        // Money mostly flows out of the trade account into the others, and comes back now and then.
        const from = a < 0.6 ? 'coin' : pick(ACCOUNTS, b);
        const to = pick(ACCOUNTS.filter((x) => x !== from), c);
        return req('POST', 'wallet/change', { from, to, currency_id: USDT, amount: amount(b, 10, 5000) }, u.token);
      }],
      ['flash', 3, async (u, [a, b]) => {
        const [from, to, amt] = a < 0.5 ? [BTC, USDT, amount(b, 0.001, 0.05, 4)] : [USDT, BTC, amount(b, 10, 2000)];
        const q = await req('POST', 'fpjy/quote', { from_currency_id: from, to_currency_id: to, amount: amt }, u.token);
        return q.code === 1 ? req('POST', 'fpjy/convert', { quote_id: q.data.quote_id }, u.token) : q;
      }],
      ['lever_open', 4, async (u, [a, b, c, d, e]) => {
        const long = a < 0.5;
        const limit = b < 0.3;
        const p = mark();
        const price = limit ? (p * (1 + (long ? -1 : 1) * c * 0.004)).toFixed(2) : undefined;
        const base = Number(price ?? p);
        const tp = (base * (1 + (long ? 1 : -1) * (0.002 + d * 0.03))).toFixed(2);
        const sl = (base * (1 - (long ? 1 : -1) * (0.002 + e * 0.03))).toFixed(2);
        const body = { symbol: 'BTC/USDT', side: long ? 'long' : 'short', type: limit ? 'limit' : 'market', lots: String(1 + Math.floor(c * 5)), multiple: pick([5, 10, 20, 50], d), take_profit: tp, stop_loss: sl };
        if (price) body.price = price;
        const r = await req('POST', 'lever/submit', body, u.token);
        if (r.code === 1) u.positions.push({ id: r.data.id, long });
        return r;
      }],
      ['lever_close', 2, (u, [a]) => (u.positions.length ? req('POST', 'lever/close', { id: pick(u.positions, a).id }, u.token) : { code: 'idle' })],
      ['lever_cancel', 1, (u, [a]) => (u.positions.length ? req('POST', 'lever/cancel', { id: pick(u.positions, a).id }, u.token) : { code: 'idle' })],
      ['lever_tpsl', 1, (u, [a, b, c]) => {
        if (!u.positions.length) return { code: 'idle' };
        const pos = pick(u.positions, a);
        const sign = pos.long ? 1 : -1;
        return req('POST', 'lever/tpsl', { id: pos.id, take_profit: (mark() * (1 + sign * (0.01 + b * 0.03))).toFixed(2), stop_loss: (mark() * (1 - sign * (0.01 + c * 0.03))).toFixed(2) }, u.token);
      }],
      ['option', 4, (u, [a, b, c]) => {
        const p = pick(periods, a);
        return req('POST', 'microtrade/submit', { period_id: p.id, symbol: 'BTC/USDT', direction: b < 0.5 ? 'up' : 'down', quantity: amount(c, Number(p.min_qty), Math.min(Number(p.max_qty), Number(p.min_qty) * 20), 0) }, u.token);
      }],
      ['wealth_buy', 3, async (u, [a, b]) => {
        const p = pick(wealth, a);
        const r = await req('POST', 'lh/deposit', { product_id: p.id, amount: amount(b, Number(p.min_amount), Number(p.min_amount) * 3), agree: '1' }, u.token);
        if (r.code === 1) u.wealth.push(r.data.order_id);
        return r;
      }],
      ['wealth_redeem', 1, (u, [a]) => (u.wealth.length ? req('POST', 'lh/deposit/cancel', { order_id: u.wealth.splice(Math.floor(a * u.wealth.length), 1)[0] }, u.token) : { code: 'idle' })],
      ['ieo_project', 0.1, (u, [a]) => newProject(a, 20_000 + a * 60_000)],
      ['ieo_subscribe', 2, (u, [a, b]) => {
        const open = ieo.filter((p) => p.ends > Date.now() + 1000);
        const p = open.length ? pick(open, a) : ieo.length ? pick(ieo, a) : undefined;
        return p ? req('POST', 'lh/newcoin/order/submit', { project_id: p.id, quantity: amount(b, 10, 1500), client_id: randomUUID() }, u.token) : { code: 'idle' };
      }],
      ['loan_apply', 1, async (u, [a, b]) => {
        const r = await req('POST', 'borrow/order/apply', { product_id: loanProduct.id, amount: amount(a, Number(loanProduct.min_amount), Math.min(Number(loanProduct.max_amount), 5000), 0), days: pick(loanProduct.cycles, b), front_image: u.images[0], back_image: u.images[1], passport_image: u.images[2] }, u.token);
        if (r.code === 1) u.loans.push(r.data.id);
        return r;
      }],
      ['loan_decide', 1, (u, [a, b]) => decide(a, b, 'admin/loan/orders', { status: 'approving' }, 'admin/loan/orders', { reason: 'income documented' }, 'Income not documented')],
      ['loan_repay', 1, (u, [a, b]) => (u.loans.length ? req('POST', 'borrow/order/back', { order_id: pick(u.loans, a), amount: amount(b, 50, 1500) }, u.token) : { code: 'idle' })],
      ['nft_buy', 2, (u, [a]) => req('POST', 'nft/buy', { item_id: pick(nftItems, a).id, client_id: randomUUID() }, u.token).then((r) => {
        if (r.code === 1) nftItems.find((i) => i.id === r.data.item.id).owner = u;
        return r;
      })],
      ['nft_list', 1, (u, [a, b]) => {
        const mine = nftItems.filter((i) => i.owner === u);
        return mine.length ? req('POST', 'nft/sell', { item_id: pick(mine, a).id, price: amount(b, 10, 300) }, u.token) : { code: 'idle' };
      }],
      ['referral', 0.4, async (u) => {
        if (!u.invite) u.invite = must(await get('user/invite', {}, u.token), 'invite').invite_code;
        return register(u.invite);
      }],
    ];
    const total = KINDS.reduce((s, k) => s + k[1], 0);
    const kindOf = (x) => {
      let acc = 0;
      for (const k of KINDS) if (x * total < (acc += k[1])) return k;
      return KINDS[KINDS.length - 1];
    };

    // The operation stream is drawn up front from the seed, so the requests replay whatever the timing.
    const plan = [];
    for (let i = 0; i < OPS; i++) plan.push({ kind: kindOf(rand()), user: rand(), draws: Array.from({ length: DRAWS }, rand) });

    let unexpectedLogged = 0;
    const run = async (op) => {
      const [name, , fn] = op.kind;
      const u = traders[Math.floor(op.user * traders.length)];
      let r;
      const t0 = performance.now();
      try {
        r = await fn(u, op.draws);
      } catch (e) {
        r = { code: 'exception', message: String(e?.message ?? e) };
      }
      const s = stats.get(name) ?? { sent: 0, ok: 0, idle: 0, refused: new Map(), ms: 0, batchMs: 0, batchSent: 0 };
      stats.set(name, s);
      if (r.code === 'idle') {
        s.idle++;
        return;
      }
      s.sent++;
      const ms = performance.now() - t0;
      s.ms += ms;
      s.batchMs += ms;
      s.batchSent++;
      if (r.code === 1) s.ok++;
      else s.refused.set(r.code, (s.refused.get(r.code) ?? 0) + 1);
      // A clear business code is a number from 1000 up but 9000 (an unexpected server error); anything else (no envelope, 401 on a valid
      // token, 5xx, a thrown error) is a defect too.
      if (r.code !== 1 && !(typeof r.code === 'number' && r.code >= 1000 && r.code !== 9000)) {
        discrepancies++;
        if (unexpectedLogged++ < 50) log(`unexpected answer to ${name}: ${JSON.stringify(r).slice(0, 300)}`);
      }
    };

    const loopStarted = performance.now();
    for (let from = 0; from < OPS; from += CHECK_EVERY) {
      const batch = plan.slice(from, from + CHECK_EVERY);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < batch.length) {
            const op = batch[next++];
            await run(op);
            done++;
          }
        }),
      );
      const slowest = [...stats.entries()]
        .filter(([, v]) => v.batchSent)
        .map(([k, v]) => [k, v.batchMs / v.batchSent])
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4);
      for (const v of stats.values()) v.batchMs = v.batchSent = 0;
      const checkStarted = performance.now();
      const phases = await checkAll(`after ${done} ops`);
      log(`check took ${((performance.now() - checkStarted) / 1000).toFixed(1)} s (${phases}); slowest kinds in this batch (mean ms): ${slowest.map(([k, m]) => `${k} ${m.toFixed(0)}`).join(', ')}`);
      log(`${done} ops, ${discrepancies} discrepancies, ${((performance.now() - started) / 1000).toFixed(0)} s, batch ${replay?.seq} replayed (${snapshotsCompared} engine hashes compared), ${((done / (performance.now() - loopStarted)) * 1000).toFixed(0)} ops/s, ${traders.length} users`);
    }
    await client.close();
    const rows = KINDS.map(([k]) => stats.get(k) ?? { sent: 0, ok: 0, idle: 0, refused: new Map(), ms: 0 }).map((s, i) => [
      KINDS[i][0],
      s.sent,
      s.ok,
      [...s.refused.entries()].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}×${n}`).join(' ') || '-',
      s.idle,
      s.sent ? (s.ms / s.sent).toFixed(0) : '-',
    ]);
    const table = ['| kind | sent | ok | refused by code | idle (nothing to act on) | mean ms |', '| --- | --- | --- | --- | --- | --- |', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
    process.stderr.write(`${table}\n`);
    log(`duration ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await stack.stop();
  }
  process.stdout.write(`sim: ${done} ops, ${discrepancies} discrepancies, seed ${SEED}\n`);
  process.exitCode = discrepancies ? 1 : 0;
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.stdout.write(`sim: 0 ops, 1 discrepancies, seed ${SEED}\n`);
  process.exit(1);
});
