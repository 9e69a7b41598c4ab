import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { accountKey, ReferenceBalances, SEQUENCER_ACCOUNT_TYPES } from '../src/modules/engine/sequencer/balances';
import { JOURNAL_COMMANDS } from '../src/modules/engine/journal-writer';
import type { SeqCommand } from '../src/modules/engine/sequencer/commands';
import { Sequencer, SequencerSnapshot } from '../src/modules/engine/sequencer/sequencer';
import { coinLeg, Posting, systemLeg } from '../src/modules/engine/trade-account-commands';
import { LedgerCode } from '../src/modules/ledger/ledger-codes';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { units } from '../src/infra/money';
import { call, Envelope, freePort, ServerProcess, sleep, spawnServer, stopServer, waitUntilUp } from './support/server-process';
import { brokenLedgerChains } from './support/ledger-chain';
import { ADMIN, createDatabase, REDIS_URL } from './support/test-app';
import { mulberry32 } from '../src/modules/simulator/prng';

/**
 * kill -9: the BUILT server (backend/dist, `npm run build -w backend`) runs as a child process on
 * a fresh database and takes a concurrent load of crossing orders, cancels, transfers both ways
 * and withdrawals; in the middle of it the process gets a real SIGKILL (no shutdown hook runs).
 * Restarted on the same database, it must have kept every answer it gave: each acknowledged
 * command projected exactly once, the books balanced, nothing left half done; and the replay hash
 * it logs must equal an independent replay of the journal (from the genesis snapshot, with the
 * obviously-right reference balance store) done here.
 */
const BTC = 1;
const USDT = 3;
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const FUND_PASSWORD = '135790';
const USERS = 6;
const LOOPS_PER_USER = 2;
const WITHDRAWALS_PER_USER = 6;
const REPLAY_LINE = /sequencer at batch (\d+) \(snapshot (\d+), (\d+) batches replayed\); replay hash ([0-9a-f]{64})/;

interface Trader {
  id: number;
  email: string;
  token: string;
  addressId: number;
}

type Kind = 'order' | 'cancel' | 'coin>lever' | 'lever>coin' | 'withdrawal';
interface Ack {
  kind: Kind;
  user: Trader;
  /** order_id, transfer_id or withdrawal_id as answered. */
  id: string;
  clientId?: string;
  /** What was sent (a retry sends it again). */
  form: Record<string, string | number>;
  data: Envelope['data'];
}

/** The simulator's seeded PRNG: the mix of operations is the same every run. */
const prng = mulberry32;

describe('kill -9 in the middle of a load, then a restart (built server, real PostgreSQL + Redis)', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let ds: DataSource;
  let env: Record<string, string>;
  let first: ServerProcess | undefined;
  let second: ServerProcess | undefined;
  const traders: Trader[] = [];
  const acks: Ack[] = [];
  const run = randomBytes(3).toString('hex');
  let restartLog: { batch: number; snapshot: number; replayed: number; hash: string };

  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => ds.query(sql, params);

  async function lastCode(recipient: string): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const [row] = await q<{ body: string }>('SELECT body FROM outbox WHERE recipient = $1 ORDER BY id DESC LIMIT 1', [recipient]);
      const code = /\b(\d{6})\b/.exec(row?.body ?? '')?.[1];
      if (code) return code;
      await sleep(100);
    }
    throw new Error(`no code was sent to ${recipient}`);
  }

  async function ok(p: Promise<Envelope>, what: string): Promise<Envelope['data']> {
    const r = await p;
    if (r.code !== 1) throw new Error(`${what}: ${JSON.stringify(r)}`);
    return r.data;
  }

  /** Register, fund password, withdrawal address: the user's own HTTP calls against the built server. */
  async function register(base: string, n: number): Promise<Trader> {
    const email = `crash${n}.${run}@kestrel.test`;
    await ok(call(base, 'POST', 'sms_mail', { email, purpose: 'register' }), 'sms_mail');
    const code = await lastCode(email);
    const reg = await ok(
      call(base, 'POST', 'user/register', { type: 'email', email, code, password: 'secret-pass', re_password: 'secret-pass', agreement: '1' }),
      'register',
    );
    const token = reg.token as string;
    await ok(call(base, 'POST', 'sms_mail', { purpose: 'fund_password' }, token), 'sms_mail fund_password');
    const fundCode = await lastCode(email);
    await ok(call(base, 'POST', 'user/e_pwd', { password: FUND_PASSWORD, re_password: FUND_PASSWORD, code: fundCode }, token), 'e_pwd');
    await ok(call(base, 'POST', 'sms_mail', { purpose: 'address' }, token), 'sms_mail address');
    const addressCode = await lastCode(email);
    const addr = await ok(
      call(base, 'POST', 'wallet/addaddress', { currency_id: USDT, chain: 'TRC20', address: TRON, password: FUND_PASSWORD, code: addressCode }, token),
      'addaddress',
    );
    return { id: reg.user.id as number, email, token, addressId: addr.id as number };
  }

  /** Operator funding the way the CLI does it (backend/src/cli/fund.ts): 900 postings in the sequencer outbox, relayed by the server. */
  async function fund(userIds: number[], currencyId: number, amount: string): Promise<void> {
    const ids: string[] = [];
    for (const userId of userIds) {
      const refId = `${run}-${userId}-${currencyId}`;
      const posting: Posting = {
        commandId: `cli-funding:${refId}`,
        refType: 'system-funding',
        refId,
        actor: 'operator-cli:crash-test',
        reason: 'crash test float',
        legs: [coinLeg(userId, currencyId, LedgerCode.SystemFunding, amount), systemLeg('external', currencyId, LedgerCode.SystemFunding, `-${amount}`)],
      };
      ids.push(posting.commandId);
      await q('INSERT INTO sequencer_outbox (command_id, command) VALUES ($1, $2)', [posting.commandId, JSON.stringify(posting)]);
    }
    for (let i = 0; i < 300; i++) {
      const rows = await q<{ result: string | null }>('SELECT result FROM sequencer_outbox WHERE command_id = ANY($1)', [ids]);
      if (rows.every((r) => r.result !== null)) {
        expect(rows.map((r) => r.result)).toEqual(ids.map(() => 'OK'));
        return;
      }
      await sleep(100);
    }
    throw new Error('the funding was not applied within 30 s');
  }

  /** The journal is all projected, the outbox all relayed, no withdrawal half done (checked twice, 300 ms apart). */
  async function caughtUp(timeoutMs = 45_000): Promise<{ head: number }> {
    const until = Date.now() + timeoutMs;
    let stable = 0;
    let last = '';
    while (Date.now() < until) {
      const [r] = await q<{ p: string | null; j: string; pending: number; submitting: number }>(
        `SELECT (SELECT seq FROM sequencer_projection WHERE id = 1)::text AS p,
                (SELECT COALESCE(MAX(seq), 0) FROM sequencer_journal)::text AS j,
                (SELECT COUNT(*) FROM sequencer_outbox WHERE applied_seq IS NULL)::int AS pending,
                (SELECT COUNT(*) FROM withdrawals WHERE status = 'submitting')::int AS submitting`,
      );
      last = JSON.stringify(r);
      if (r.p === r.j && r.pending === 0 && r.submitting === 0) {
        if (++stable >= 2) return { head: Number(r.j) };
      } else stable = 0;
      await sleep(300);
    }
    throw new Error(`the restarted server did not catch up: ${last}`);
  }

  beforeAll(async () => {
    db = await createDatabase();
    env = {
      DATABASE_URL: db.url,
      REDIS_URL,
      REDIS_PREFIX: `crash:${db.name}:`,
      MARKET_SIMULATOR: 'off',
      OPTION_WORKER: 'off',
      LOG_LEVEL: 'info',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      // No flash-desk float: every coin in the books is the test's own funding.
      FLASH_FLOAT: '',
      // Snapshots every few hundred commands: the restart recovers from one and replays the rest.
      ENGINE_SNAPSHOT_EVERY: '150',
      WITHDRAW_PER_DAY: '1000',
      WITHDRAW_DAILY_LIMIT_BASIC: '100000000',
      RATE_LIMIT_LOGIN_IP: '100000/60',
      RATE_LIMIT_LOGIN_ACCOUNT: '100000/60',
      RATE_LIMIT_REGISTER_IP: '100000/60',
      RATE_LIMIT_CODE_IP: '100000/60',
      RATE_LIMIT_LOOKUP_IP: '100000/60',
      RATE_LIMIT_CODE_TARGET: '100000/60',
      RATE_LIMIT_FUND_PASSWORD: '100000/60',
      FAST_LANE: 'on',
    };
    first = spawnServer(await freePort(), env);
    await waitUntilUp(first, 90_000);
    ds = new DataSource({ type: 'postgres', url: db.url, logging: false, poolSize: 4 });
    await ds.initialize();

    for (let n = 0; n < USERS; n++) traders.push(await register(first.base, n));
    // Real-name verification is an operator's approval of uploaded documents (support/accounts.ts
    // verifyBasic does it through the API); it is not what this test is about, so the level that
    // approval sets is written directly.
    await q('UPDATE users SET verification_level = 1 WHERE id = ANY($1)', [traders.map((t) => t.id)]);
    await fund(
      traders.map((t) => t.id),
      USDT,
      '100000',
    );
    await fund(
      traders.map((t) => t.id),
      BTC,
      '5',
    );
    // Each user's margin (lever) account holds some USDT, so transfers back into the trade account can run too.
    for (const t of traders)
      await ok(call(first.base, 'POST', 'wallet/change', { from: 'coin', to: 'lever', currency_id: USDT, amount: '2000' }, t.token), 'seed lever');
  }, 120_000);

  afterAll(async () => {
    await Promise.all([stopServer(first, 5000), stopServer(second, 5000)]);
    await ds?.destroy().catch(() => undefined);
    await db?.drop();
  });

  it('takes a concurrent load and is killed with SIGKILL in the middle of it', async () => {
    const server = first!;
    let stopped = false;
    let inFlight = 0;
    let lost = 0;
    const counters = { sent: 0, refused: new Map<string, number>() };
    const withdrawals = new Map<number, number>();
    const live = new Map<number, string[]>(); // user → acknowledged order ids, for cancels

    const send = async (
      kind: Kind,
      user: Trader,
      method: 'POST' | 'PUT',
      path: string,
      form: Record<string, string | number>,
      idOf: (d: Envelope['data']) => string,
    ) => {
      inFlight++;
      counters.sent++;
      try {
        const r = await call(server.base, method, path, form, user.token, 20_000);
        if (r.code !== 1) {
          const key = `${kind} ${r.code}`;
          counters.refused.set(key, (counters.refused.get(key) ?? 0) + 1);
          return undefined;
        }
        const ack: Ack = { kind, user, id: idOf(r.data), clientId: (form.client_order_id ?? form.client_id) as string | undefined, form, data: r.data };
        acks.push(ack);
        return ack;
      } catch {
        lost++; // no answer (the process died with it in flight): its fate is unknown to the client
        return undefined;
      } finally {
        inFlight--;
      }
    };

    const loop = async (user: Trader, seed: number) => {
      const rnd = prng(seed);
      let n = 0;
      while (!stopped) {
        n++;
        const cid = `${run}-${user.id}-${seed}-${n}`;
        const x = rnd();
        if (x < 0.5) {
          // Limit orders around 60 000: about half cross the book, the rest rest in it.
          const form = {
            symbol: 'BTC/USDT',
            side: rnd() < 0.5 ? 'buy' : 'sell',
            type: 'limit',
            price: String(59_990 + Math.floor(rnd() * 21)),
            quantity: rnd() < 0.5 ? '0.001' : '0.002',
            client_order_id: cid,
          };
          const a = await send('order', user, 'POST', 'coin/trade', form, (d) => String(d.order_id));
          if (a && a.data.status === 'waiting') live.set(user.id, [...(live.get(user.id) ?? []), a.id]);
        } else if (x < 0.65) {
          const mine = live.get(user.id) ?? [];
          const id = mine.splice(Math.floor(rnd() * mine.length), 1)[0];
          if (id) await send('cancel', user, 'PUT', 'coin/trade', { order_id: id }, (d) => String(d.order_id));
        } else if (x < 0.8) {
          await send('coin>lever', user, 'POST', 'wallet/change', { from: 'coin', to: 'lever', currency_id: USDT, amount: '5', client_id: cid }, (d) =>
            String(d.transfer_id),
          );
        } else if (x < 0.92) {
          await send('lever>coin', user, 'POST', 'wallet/change', { from: 'lever', to: 'coin', currency_id: USDT, amount: '3', client_id: cid }, (d) =>
            String(d.transfer_id),
          );
        } else if ((withdrawals.get(user.id) ?? 0) < WITHDRAWALS_PER_USER) {
          withdrawals.set(user.id, (withdrawals.get(user.id) ?? 0) + 1);
          await send('withdrawal', user, 'POST', 'wallet/out', { address_id: user.addressId, amount: '15', password: FUND_PASSWORD, client_id: cid }, (d) =>
            String(d.withdrawal_id),
          );
        }
      }
    };

    const loops = traders.flatMap((u, i) => Array.from({ length: LOOPS_PER_USER }, (_, k) => loop(u, 1000 + i * 10 + k)));
    // Kill once the load is well under way: at least 3 s in and 80 answers, at most 8 s in.
    const started = Date.now();
    while (Date.now() - started < 8000 && (Date.now() - started < 3000 || acks.length < 80)) await sleep(25);
    const inFlightAtKill = inFlight;
    const [journalAtKill] = await q<{ j: string; p: string }>(
      'SELECT (SELECT COALESCE(MAX(seq), 0) FROM sequencer_journal)::text AS j, (SELECT seq FROM sequencer_projection WHERE id = 1)::text AS p',
    );
    process.kill(server.child.pid!, 'SIGKILL');
    stopped = true;
    const end = await server.exited;
    await Promise.all(loops);

    expect(end).toEqual({ code: null, signal: 'SIGKILL' });
    expect(inFlightAtKill).toBeGreaterThan(0);
    // What the dead process left behind for the restart to finish.
    const [left] = await q<{ j: string; p: string; pending: number; submitting: number }>(
      `SELECT (SELECT COALESCE(MAX(seq), 0) FROM sequencer_journal)::text AS j, (SELECT seq FROM sequencer_projection WHERE id = 1)::text AS p,
              (SELECT COUNT(*) FROM sequencer_outbox WHERE applied_seq IS NULL)::int AS pending, (SELECT COUNT(*) FROM withdrawals WHERE status = 'submitting')::int AS submitting`,
    );
    // The only refusals are the business ones a racing load meets: a cancel of an order that has just filled, and the like.
    const expected = new Set(['cancel 2104', 'order 2000', 'order 2002', 'coin>lever 2000', 'lever>coin 2000', 'withdrawal 2000']);
    expect([...counters.refused.keys()].filter((k) => !expected.has(k))).toEqual([]);
    const kinds = (k: Kind) => acks.filter((a) => a.kind === k).length;
    expect(kinds('order')).toBeGreaterThan(10);
    expect(kinds('coin>lever') + kinds('lever>coin')).toBeGreaterThan(3);
    process.stdout.write(
      `crash test: ${counters.sent} requests in ${Date.now() - started} ms; acknowledged ${acks.length} (orders ${kinds('order')}, cancels ${kinds('cancel')}, ` +
        `coin>lever ${kinds('coin>lever')}, lever>coin ${kinds('lever>coin')}, withdrawals ${kinds('withdrawal')}); ` +
        `refused ${JSON.stringify(Object.fromEntries(counters.refused))}; no answer ${lost} (${inFlightAtKill} in flight at the kill); ` +
        `journal ${journalAtKill.j}, projected ${journalAtKill.p} just before it; left behind: journal ${left.j}, projected ${left.p}, ` +
        `${left.pending} outbox commands pending, ${left.submitting} withdrawals submitting\n`,
    );
  }, 60_000);

  it('restarts on the same database, replays the journal and catches up', async () => {
    second = spawnServer(await freePort(), env);
    await waitUntilUp(second, 90_000);
    let m: RegExpExecArray | null = null;
    for (let i = 0; i < 100 && !(m = REPLAY_LINE.exec(second.output())); i++) await sleep(100);
    expect(m).not.toBeNull();
    restartLog = { batch: Number(m![1]), snapshot: Number(m![2]), replayed: Number(m![3]), hash: m![4] };
    await caughtUp();
    expect(second.output()).not.toMatch(/"level":(50|60)/); // no error or fatal log line
  }, 120_000);

  it('kept every acknowledged command, each exactly once', async () => {
    const orders = acks.filter((a) => a.kind === 'order');
    const rows = await q<{ id: string; user_id: number; client_order_id: string; status: string }>(
      'SELECT id::text, user_id, client_order_id, status FROM orders WHERE id = ANY($1::bigint[])',
      [orders.map((a) => a.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const a of orders) {
      expect(byId.get(a.id)).toMatchObject({ user_id: a.user.id, client_order_id: a.clientId });
      if (a.data.status !== 'waiting') expect(byId.get(a.id)!.status).toBe(a.data.status);
    }
    // One order per client order id, one freeze (901) per order.
    expect(await q(`SELECT user_id, client_order_id FROM orders WHERE client_order_id IS NOT NULL GROUP BY 1, 2 HAVING COUNT(*) > 1`)).toEqual([]);
    expect(await q(`SELECT ref_id FROM ledger WHERE ref_type = 'order' AND code = 901 GROUP BY ref_id HAVING COUNT(*) <> 1`)).toEqual([]);
    const [{ unfrozen }] = await q<{ unfrozen: number }>(
      `SELECT COUNT(*)::int AS unfrozen FROM orders o WHERE NOT EXISTS (SELECT 1 FROM ledger e WHERE e.ref_type = 'order' AND e.ref_id = o.id::text AND e.code = 901)`,
    );
    expect(unfrozen).toBe(0);

    const cancels = acks.filter((a) => a.kind === 'cancel');
    const cancelled = await q<{ id: string; status: string }>('SELECT id::text, status FROM orders WHERE id = ANY($1::bigint[])', [cancels.map((a) => a.id)]);
    expect(cancelled.every((r) => r.status === 'cancelled')).toBe(true);
    expect(cancelled).toHaveLength(new Set(cancels.map((a) => a.id)).size);

    // Transfers: out of the trade account 502 coin + 503 lever; into it 502 lever + 502 transit, then 503 transit + 503 coin.
    const entries = async (refType: string, refId: string) =>
      (
        await q<{ account_type: string; code: number }>(
          'SELECT account_type, code FROM ledger WHERE ref_type = $1 AND ref_id = $2 ORDER BY code, account_type',
          [refType, refId],
        )
      ).map((e) => `${e.code} ${e.account_type}`);
    for (const a of acks.filter((x) => x.kind === 'coin>lever')) {
      expect(a.id).toBe(`${a.user.id}-${a.clientId}`);
      expect(await entries('transfer', a.id)).toEqual(['502 coin', '503 lever']);
    }
    for (const a of acks.filter((x) => x.kind === 'lever>coin'))
      expect(await entries('transfer', a.id)).toEqual(['502 lever', '502 transit', '503 coin', '503 transit']);

    // Withdrawals: the row in review, its freeze (901) recorded once.
    const ws = acks.filter((a) => a.kind === 'withdrawal');
    for (const a of ws) {
      const [w] = await q<{ status: string; user_id: number }>('SELECT status, user_id FROM withdrawals WHERE id = $1', [a.id]);
      expect(w).toEqual({ status: 'review', user_id: a.user.id });
      expect(await entries('withdrawal', a.id)).toEqual(['901 coin']);
    }
    expect(await q(`SELECT id FROM withdrawals WHERE status = 'submitting'`)).toEqual([]);
    // Every withdrawal row left (acknowledged or not) has exactly its one freeze.
    expect(
      await q(
        `SELECT w.id FROM withdrawals w LEFT JOIN ledger e ON e.ref_type = 'withdrawal' AND e.ref_id = w.id::text AND e.code = 901
         GROUP BY w.id HAVING COUNT(e.id) <> 1`,
      ),
    ).toEqual([]);
  });

  it('settled no trade twice, and the books balance', async () => {
    expect(await q('SELECT market_id, trade_id, COUNT(*) FROM trades GROUP BY 1, 2 HAVING COUNT(*) > 1')).toEqual([]);
    expect(
      await q(
        `SELECT ref_id, owner_type, owner_id, account_type, currency_id, code, COUNT(*) FROM ledger WHERE ref_type = 'trade'
         GROUP BY 1, 2, 3, 4, 5, 6 HAVING COUNT(*) > 1`,
      ),
    ).toEqual([]);
    // Each trade row has its ledger posting (its place in the ledger's order and both sides' balances
    // after it: the view shows its legs from them), and no trade's legs were written as entries too.
    expect(
      await q(
        `SELECT trade_id FROM trades WHERE ledger_id IS NULL OR event_seq IS NULL OR base_currency_id IS NULL OR quote_currency_id IS NULL
           OR maker_pay_available_after IS NULL OR maker_receive_frozen_after IS NULL OR taker_pay_frozen_after IS NULL OR taker_receive_available_after IS NULL`,
      ),
    ).toEqual([]);
    expect(await q(`SELECT id FROM ledger_entries WHERE ref_type = 'trade'`)).toEqual([]);
    const [{ trades, refs }] = await q<{ trades: number; refs: number }>(
      `SELECT (SELECT COUNT(*) FROM trades)::int AS trades, (SELECT COUNT(DISTINCT ref_id) FROM ledger WHERE ref_type = 'trade')::int AS refs`,
    );
    expect(refs).toBe(trades);
    expect(trades).toBeGreaterThan(0);
    // The house's side of the spot fees is one entry per currency per projection transaction (ref
    // spot-fees:<first>-<last batch>): a batch projected twice would show as overlapping ranges.
    const fees = await q<{ ref_id: string; currency_id: number; n: number }>(
      `SELECT ref_id, currency_id, COUNT(*)::int AS n FROM ledger WHERE ref_type = 'spot-fees' GROUP BY 1, 2 ORDER BY 2, 1`,
    );
    expect(fees.filter((f) => f.n !== 1)).toEqual([]);
    for (const currency of new Set(fees.map((f) => f.currency_id))) {
      const ranges = fees
        .filter((f) => f.currency_id === currency)
        .map((f) => f.ref_id.split('-').map(Number))
        .map(([a, b]) => [a, b ?? a])
        .sort((x, y) => x[0] - y[0]);
      ranges.forEach(([a, b], i) => {
        expect(a).toBeLessThanOrEqual(b);
        if (i) expect(a).toBeGreaterThan(ranges[i - 1][1]);
      });
    }
    // Double entry: whatever a reference moved sums to zero per currency (freezes move within one
    // account); the trades with the spot-fee entries they fed.
    expect(
      await q(
        `SELECT ref_type, ref_id, currency_id FROM ledger WHERE ref_type NOT IN ('trade', 'spot-fees') GROUP BY 1, 2, 3 HAVING SUM(available_delta + frozen_delta) <> 0`,
      ),
    ).toEqual([]);
    expect(
      await q(`SELECT currency_id FROM ledger WHERE ref_type IN ('trade', 'spot-fees') GROUP BY 1 HAVING SUM(available_delta + frozen_delta) <> 0`),
    ).toEqual([]);
    // Each account's entries chain their balances after in the ledger's order, to the balance.
    expect(await brokenLedgerChains(ds)).toEqual([]);
    const tb = await new TrialBalanceService(ds).compute();
    expect(tb.currencies.filter((c) => !c.balanced)).toEqual([]);
    expect(tb.ok).toBe(true);
  });

  it('logs the replay hash that an independent replay of the journal gives', async () => {
    const [genesis] = await q<{ state: string }>('SELECT state FROM sequencer_snapshots WHERE seq = 0');
    expect(genesis).toBeDefined();
    const seqr = Sequencer.restore(JSON.parse(genesis.state) as SequencerSnapshot, (init) => new ReferenceBalances(init));
    const journal = await q<{ seq: string; ts: string; commands: string }>(
      `SELECT seq::text AS seq, ts::text AS ts, ${JOURNAL_COMMANDS} AS commands FROM sequencer_journal j WHERE j.seq <= $1 ORDER BY j.seq`,
      [restartLog.batch],
    );
    expect(journal.map((r) => Number(r.seq))).toEqual(Array.from({ length: restartLog.batch }, (_, i) => i + 1)); // no gap
    for (const b of journal) {
      seqr.beginBatch(Number(b.seq), Number(b.ts));
      for (const c of JSON.parse(b.commands) as SeqCommand[]) seqr.apply(c);
    }
    expect(seqr.seq).toBe(restartLog.batch);
    expect(seqr.hash()).toBe(restartLog.hash);
    process.stdout.write(
      `crash test: restart at batch ${restartLog.batch} from snapshot ${restartLog.snapshot} (${restartLog.replayed} replayed); hash ${restartLog.hash.slice(0, 16)}… matches\n`,
    );
  });

  it('answers retried client ids as duplicates with one effect; the projection equals the journal', async () => {
    const server = second!;
    const pick = (k: Kind, n: number) => acks.filter((a) => a.kind === k && a.clientId).slice(-n);
    const retries = [...pick('order', 3), ...pick('coin>lever', 2), ...pick('lever>coin', 2), ...pick('withdrawal', 2)];
    expect(retries.length).toBeGreaterThanOrEqual(5);
    const before = await q<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ledger`);
    // Each retried twice at once.
    const answers = await Promise.all(
      retries.flatMap((a) => {
        const path = a.kind === 'order' ? 'coin/trade' : a.kind === 'withdrawal' ? 'wallet/out' : 'wallet/change';
        return [1, 2].map(async () => ({ a, r: await call(server.base, 'POST', path, a.form, a.user.token) }));
      }),
    );
    for (const { a, r } of answers) {
      expect(r.code).toBe(1);
      if (a.kind === 'order') expect(String(r.data.order_id)).toBe(a.id);
      else if (a.kind === 'withdrawal') expect({ id: String(r.data.withdrawal_id), duplicate: r.data.duplicate }).toEqual({ id: a.id, duplicate: true });
      else expect(r.data).toEqual({ transfer_id: a.id, duplicate: true });
    }
    const { head } = await caughtUp();
    // Nothing new was written: the same ledger, one order per client id, one row per withdrawal client id.
    expect(await q<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ledger`)).toEqual(before);
    for (const a of retries.filter((x) => x.kind === 'order'))
      expect(await q('SELECT id::text FROM orders WHERE user_id = $1 AND client_order_id = $2', [a.user.id, a.clientId])).toEqual([{ id: a.id }]);
    for (const a of retries.filter((x) => x.kind === 'withdrawal'))
      expect(await q('SELECT id::text FROM withdrawals WHERE user_id = $1 AND client_id = $2', [a.user.id, a.clientId])).toEqual([{ id: a.id }]);
    expect((await new TrialBalanceService(ds).compute()).ok).toBe(true);

    // The projection (balances, live orders) equals the journal replayed independently to its head.
    const [genesis] = await q<{ state: string }>('SELECT state FROM sequencer_snapshots WHERE seq = 0');
    const seqr = Sequencer.restore(JSON.parse(genesis.state) as SequencerSnapshot, (init) => new ReferenceBalances(init));
    for (const b of await q<{ seq: string; ts: string; commands: string }>(
      `SELECT seq::text AS seq, ts::text AS ts, ${JOURNAL_COMMANDS} AS commands FROM sequencer_journal j ORDER BY j.seq`,
    )) {
      seqr.beginBatch(Number(b.seq), Number(b.ts));
      for (const c of JSON.parse(b.commands) as SeqCommand[]) seqr.apply(c);
    }
    expect(seqr.seq).toBe(head);
    const state = seqr.snapshot();
    const nonZero = (rows: Array<[string, bigint, bigint]>) =>
      rows
        .filter(([, a, f]) => a !== 0n || f !== 0n)
        .map(([k, a, f]) => `${k} ${a} ${f}`)
        .sort();
    const db = await q<{ owner_type: 'user' | 'system'; owner_id: number; account_type: string; currency_id: number; available: string; frozen: string }>(
      'SELECT owner_type, owner_id, account_type, currency_id, available::text, frozen::text FROM balances WHERE account_type = ANY($1)',
      [[...SEQUENCER_ACCOUNT_TYPES]],
    );
    expect(
      nonZero(
        db.map((r) => [
          accountKey({ ownerType: r.owner_type, ownerId: r.owner_id, accountType: r.account_type, currencyId: r.currency_id }),
          units(r.available),
          units(r.frozen),
        ]),
      ),
    ).toEqual(nonZero(state.balances.map(([k, a, f]) => [k, BigInt(a), BigInt(f)])));
    const waiting = await q<{ id: string; frozen_left: string }>(
      `SELECT o.id::text AS id, o.frozen_left::text AS frozen_left FROM orders o WHERE o.status = 'waiting' ORDER BY o.id`,
    );
    expect(waiting.map((o) => `${o.id} ${units(o.frozen_left)}`)).toEqual(state.orders.map((o) => `${o.id} ${o.frozenLeft}`));
  }, 60_000);
});
