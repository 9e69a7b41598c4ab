import { EntityManager } from 'typeorm';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { preparedQuery } from '../src/infra/database/sql';
import { LedgerCode, SYSTEM_OWNER_ID } from '../src/modules/ledger/ledger-codes';
import { LedgerAccountMissing, LedgerService, Movement, UnbalancedPostingError } from '../src/modules/ledger/ledger.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { adminToken } from './support/accounts';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const USDT = 3;
const external = (amount: string, code: LedgerCode): Movement => ({
  ownerType: 'system',
  ownerId: SYSTEM_OWNER_ID,
  accountType: 'external',
  currencyId: USDT,
  code,
  available: amount,
});
const userCoin = (userId: number, amount: string, code: LedgerCode): Movement => ({
  ownerType: 'user',
  ownerId: userId,
  accountType: 'option',
  currencyId: USDT,
  code,
  available: amount,
});

describe('ledger (real PostgreSQL)', () => {
  let t: TestApp;
  let ledger: LedgerService;
  let trial: TrialBalanceService;
  beforeAll(async () => {
    t = await startTestApp();
    ledger = t.app.get(LedgerService);
    trial = t.app.get(TrialBalanceService);
  });
  afterAll(() => t.close());

  const deposit = (userId: number, amount: string, id: string) =>
    ledger.post({
      commandId: id,
      refType: 'deposit',
      refId: id,
      actor: 'admin:1',
      movements: [userCoin(userId, amount, LedgerCode.DepositIncrease), external(`-${amount}`, LedgerCode.DepositIncrease)],
    });
  const debit = (userId: number, amount: string, id: string) =>
    ledger.post({
      commandId: id,
      refType: 'withdrawal',
      refId: id,
      actor: `user:${userId}`,
      movements: [userCoin(userId, `-${amount}`, LedgerCode.WithdrawalDeduction), external(amount, LedgerCode.WithdrawalDeduction)],
    });

  it('50 concurrent debits on one balance: never overspent, never negative; the trial balance holds', async () => {
    await deposit(101, '100', 'dep-race');
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => debit(101, '3', `debit-race-${i}`)));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toBe(33);
    expect(refused).toHaveLength(17);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 2000 });
    const [bal] = await ledger.balancesOf('user', 101);
    expect(bal).toMatchObject({ available: '1', frozen: '0' });
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE owner_id = 101 AND code = $1`, [LedgerCode.WithdrawalDeduction]);
    expect(n).toBe(33);
    const tb = await trial.compute();
    expect(tb.ok).toBe(true);
    expect(tb.currencies.find((c) => c.currency_id === USDT)).toMatchObject({
      held_total: '1',
      approved_deposits: '100',
      completed_withdrawals: '99',
      net_external_flow: '1',
      balanced: true,
      negative_accounts: 0,
      projection_mismatches: 0,
    });
  });

  it('concurrent first credits of an account that does not exist yet all go through (regression: the one that found it created a moment before answered 2000)', async () => {
    for (let round = 0; round < 10; round++) {
      const owner = 7000 + round;
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => deposit(owner, '5', `first-credit-${owner}-${i}`)));
      expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)).toEqual([]);
      expect((await ledger.balancesOf('user', owner))[0]).toMatchObject({ available: '40', frozen: '0' });
    }
    expect((await trial.compute()).ok).toBe(true);
  });

  it('a command retried with the same id has exactly one effect (in sequence and concurrently)', async () => {
    const first = await deposit(202, '10.5', 'dep-once');
    const again = await deposit(202, '10.5', 'dep-once');
    expect(first.duplicate).toBe(false);
    expect(again).toEqual({ eventSeq: first.eventSeq, duplicate: true });
    const racing = await Promise.all(Array.from({ length: 10 }, () => deposit(202, '1', 'dep-racing')));
    expect(racing.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(racing.map((r) => r.eventSeq)).size).toBe(1);
    const [bal] = await ledger.balancesOf('user', 202);
    expect(bal.available).toBe('11.5');
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM events WHERE command_id IN ('dep-once', 'dep-racing')`);
    expect(n).toBe(2);
  });

  it('refuses a posting that would create or destroy money, and one that overdraws, changing nothing', async () => {
    await expect(
      ledger.post({ commandId: 'mint', refType: 'x', refId: '1', actor: 'test', movements: [userCoin(303, '5', LedgerCode.DepositIncrease)] }),
    ).rejects.toBeInstanceOf(UnbalancedPostingError);
    await expect(debit(303, '0.000000000000000001', 'overdraw')).rejects.toMatchObject({ code: 2000 });
    expect(await ledger.balancesOf('user', 303)).toEqual([]);
    expect(await t.ds.query(`SELECT seq FROM events WHERE command_id IN ('mint', 'overdraw')`)).toEqual([]);
  });

  it('freezes and unfreezes within one account, keeping available and frozen non-negative', async () => {
    await deposit(404, '50', 'dep-404');
    const freeze = (amount: string, id: string) =>
      ledger.post({
        commandId: id,
        refType: 'order',
        refId: id,
        actor: 'user:404',
        movements: [{ ...userCoin(404, `-${amount}`, LedgerCode.Freeze), frozen: amount }],
      });
    await freeze('20', 'frz-1');
    await expect(freeze('30.01', 'frz-2')).rejects.toMatchObject({ code: 2000 });
    const [bal] = await ledger.balancesOf('user', 404);
    expect(bal).toMatchObject({ available: '30', frozen: '20' });
  });

  it('ledger events and entries are append-only', async () => {
    await expect(t.ds.query('UPDATE ledger_entries SET code = 1')).rejects.toThrow(/append-only/);
    await expect(t.ds.query('DELETE FROM events')).rejects.toThrow(/append-only/);
  });

  it('the trial balance is served to operators', async () => {
    const token = await adminToken(t, ADMIN.email, ADMIN.password);
    const res = await t.http().get('/api/admin/ledger/trial-balance').set('Authorization', token);
    expect(res.body).toMatchObject({ code: 1, data: { ok: true } });
    expect(res.body.data.currencies.map((c: { symbol: string }) => c.symbol)).toEqual(['BTC', 'ETH', 'USDT']);
  });

  it('the trial balance reads every figure from one snapshot: a deposit committed between its reads does not show as an imbalance (regression: separate connections, ok: false on a balanced ledger)', async () => {
    await deposit(103, '10', 'dep-snapshot-1');
    const run = PostgresQueryRunner.prototype.query;
    let posted = false;
    // The external flows are read only after another deposit has committed (the balances were read before it).
    const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query').mockImplementation(async function (
      this: PostgresQueryRunner,
      ...args: Parameters<typeof run>
    ) {
      if (!posted && String(args[0]).includes('AS withdrawals')) {
        posted = true;
        await deposit(103, '7', 'dep-snapshot-2');
      }
      return run.apply(this, args);
    });
    try {
      const tb = await trial.compute();
      expect(posted).toBe(true);
      expect(tb.currencies.filter((c) => !c.balanced)).toEqual([]);
    } finally {
      spy.mockRestore();
    }
    expect((await trial.compute()).ok).toBe(true);
  });
});

describe('ledger batch postings (real PostgreSQL)', () => {
  let t: TestApp;
  let ledger: LedgerService;
  beforeAll(async () => {
    t = await startTestApp();
    ledger = t.app.get(LedgerService);
  });
  afterAll(() => t.close());

  /** Runs `work` in a transaction that then rolls back. */
  const rolledBack = (work: (m: EntityManager) => Promise<unknown>) =>
    t.ds.transaction(async (m) => {
      await work(m);
      throw new Error('roll back');
    });
  const fund = (userId: number, amount: string, id: string) =>
    ledger.post({
      commandId: id,
      refType: 'deposit',
      refId: id,
      actor: 'test',
      movements: [userCoin(userId, amount, LedgerCode.DepositIncrease), external(`-${amount}`, LedgerCode.DepositIncrease)],
    });
  const freeze = (userId: number, amount: string, id: string) => ({
    commandId: id,
    refType: 'order',
    refId: id,
    actor: 'test',
    movements: [{ ...userCoin(userId, `-${amount}`, LedgerCode.Freeze), frozen: amount }],
  });

  it('applies postings in order, refuses only the one that would overdraw, and keeps one effect per command id', async () => {
    await fund(7, '10', 'b-dep');
    const results = await t.ds.transaction((m) =>
      ledger.postBatch([freeze(7, '4', 'f1'), freeze(7, '4', 'f2'), freeze(7, '4', 'f3'), freeze(7, '2', 'f4'), freeze(7, '4', 'f1')], m),
    );
    expect(results.map((r) => r.ok)).toEqual([true, true, false, true, true]);
    expect(results[4]).toMatchObject({ ok: true, duplicate: true });
    expect(await ledger.balancesOf('user', 7)).toEqual([{ accountType: 'option', currencyId: USDT, available: '0', frozen: '10' }]);
    const again = await t.ds.transaction((m) => ledger.postBatch([freeze(7, '4', 'f2')], m));
    expect(again[0]).toMatchObject({ ok: true, duplicate: true });
    const entries = await t.ds.query(
      `SELECT ref_id, trim_scale(available_after)::text AS available_after, trim_scale(frozen_after)::text AS frozen_after FROM ledger_entries WHERE owner_id = 7 AND code = 901 ORDER BY id`,
    );
    expect(entries.map((e: { ref_id: string }) => e.ref_id)).toEqual(['f1', 'f2', 'f4']);
    expect(entries[2]).toMatchObject({ available_after: '0', frozen_after: '10' });
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  });

  it('a stated stream version that is already taken is refused and the whole batch rolls back', async () => {
    await fund(9, '10', 'v-dep');
    await t.ds.transaction((m) => ledger.postBatch([{ ...freeze(9, '1', 'v1'), refId: 'order-9', streamVersion: 1 }], m));
    // A second posting that claims to open the same stream: the unique (stream, version) index says no.
    await expect(
      t.ds.transaction((m) => ledger.postBatch([freeze(9, '2', 'v2'), { ...freeze(9, '3', 'v3'), refId: 'order-9', streamVersion: 1 }], m)),
    ).rejects.toThrow();
    expect(await ledger.balancesOf('user', 9)).toEqual([{ accountType: 'option', currencyId: USDT, available: '9', frozen: '1' }]);
    // Without a stated version the next one is looked up.
    const [next] = await t.ds.transaction((m) => ledger.postBatch([{ ...freeze(9, '3', 'v3'), refId: 'order-9' }], m));
    expect(next.ok).toBe(true);
    expect(await t.ds.query(`SELECT stream_version FROM events WHERE stream_id = 'order:order-9' ORDER BY stream_version`)).toEqual([
      { stream_version: 1 },
      { stream_version: 2 },
    ]);
  });

  it('an account first seen in a batch that rolled back is created by the next batch', async () => {
    const credit = (id: string) => ({
      commandId: id,
      refType: 'deposit',
      refId: id,
      actor: 'test',
      movements: [userCoin(10, '5', LedgerCode.DepositIncrease), external('-5', LedgerCode.DepositIncrease)],
    });
    await expect(rolledBack((m) => ledger.postBatch([credit('rb-1')], m))).rejects.toThrow('roll back');
    expect(await ledger.balancesOf('user', 10)).toEqual([]);
    const [r] = await t.ds.transaction((m) => ledger.postBatch([credit('rb-2')], m));
    expect(r.ok).toBe(true);
    expect(await ledger.balancesOf('user', 10)).toEqual([{ accountType: 'option', currencyId: USDT, available: '5', frozen: '0' }]);
  });

  it('racing batches and single postings on the same account never overdraw', async () => {
    await fund(8, '100', 'r-dep');
    const batches = Array.from({ length: 10 }, (_, b) =>
      t.ds.transaction((m) =>
        ledger.postBatch(
          Array.from({ length: 5 }, (_, i) => freeze(8, '3', `rb-${b}-${i}`)),
          m,
        ),
      ),
    );
    const singles = Array.from({ length: 10 }, (_, i) =>
      ledger.post(freeze(8, '3', `rs-${i}`)).then(
        () => true,
        () => false,
      ),
    );
    const [batchResults, singleResults] = await Promise.all([Promise.all(batches), Promise.all(singles)]);
    const ok = batchResults.flat().filter((r) => r.ok).length + singleResults.filter(Boolean).length;
    expect(ok).toBe(33);
    expect(await ledger.balancesOf('user', 8)).toEqual([{ accountType: 'option', currencyId: USDT, available: '1', frozen: '99' }]);
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  });

  it('batches lock accounts in the order every posting and the projector use, their keys’ text (regression: by owner id, 99 before 100, they deadlocked)', async () => {
    await fund(99, '10', 'lk-dep-99');
    await fund(100, '10', 'lk-dep-100');
    const both = (name: string) => [99, 100].map((owner) => ({ ...freeze(owner, '1', `${name}-${owner}`), refId: `${name}-${owner}`, streamVersion: 1 }));
    const runs: Array<[string, (m: EntityManager) => Promise<unknown>]> = [
      ['lk-batch', (m) => ledger.postBatch(both('lk-batch'), m)],
      ['lk-all', (m) => ledger.postAllOrFail(both('lk-all'), m)],
    ];
    for (const [, post] of runs) {
      // Another transaction (a projection, a posting) takes the two accounts in key order: "user:100:…" first.
      const other = t.ds.createQueryRunner();
      await other.connect();
      await other.startTransaction();
      const lock = (owner: number) =>
        other.query(`SELECT 1 FROM balances WHERE owner_type = 'user' AND owner_id = $1 AND account_type = 'option' AND currency_id = $2 FOR UPDATE`, [
          owner,
          USDT,
        ]);
      try {
        await lock(100);
        const batch = t.ds.transaction(post);
        // The batch now waits for user 100's account (before: holding user 99's).
        const waiting = async () =>
          (
            await t.ds.query(
              `SELECT COUNT(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE NOT l.granted AND a.datname = current_database() AND a.query LIKE '%balances%'`,
            )
          )[0].n > 0;
        for (let i = 0; i < 250 && !(await waiting()); i++) await new Promise((r) => setTimeout(r, 20));
        await lock(99); // before: a deadlock, and PostgreSQL aborted one of the two
        await other.commitTransaction();
        await batch;
      } finally {
        if (other.isTransactionActive) await other.rollbackTransaction();
        await other.release();
      }
    }
    expect(await ledger.balancesOf('user', 99)).toEqual([{ accountType: 'option', currencyId: USDT, available: '8', frozen: '2' }]);
    expect(await ledger.balancesOf('user', 100)).toEqual([{ accountType: 'option', currencyId: USDT, available: '8', frozen: '2' }]);
  });

  it('postAllOrFail: running balances per account in movement order; an overdraw or a missing account writes nothing', async () => {
    await fund(12, '10', 'pa-dep');
    // Two postings on the same account in one batch, each with its stated stream version.
    const pay = (id: string, amount: string) => ({ ...freeze(12, amount, id), refId: `pa-${id}`, streamVersion: 1 });
    await t.ds.transaction((m) => ledger.postAllOrFail([pay('a', '3'), pay('b', '4')], m));
    expect(await ledger.balancesOf('user', 12)).toEqual([{ accountType: 'option', currencyId: USDT, available: '3', frozen: '7' }]);
    const entries = await t.ds.query(
      `SELECT e.ref_id, trim_scale(e.available_after)::text AS a, trim_scale(e.frozen_after)::text AS f, v.stream_version FROM ledger_entries e JOIN events v ON v.seq = e.event_seq
       WHERE e.owner_id = 12 AND e.code = 901 ORDER BY e.id`,
    );
    expect(entries).toEqual([
      { ref_id: 'pa-a', a: '7', f: '3', stream_version: 1 },
      { ref_id: 'pa-b', a: '3', f: '7', stream_version: 1 },
    ]);
    // The second posting would take the account below zero (the balance's own check refuses it): nothing is written.
    await expect(t.ds.transaction((m) => ledger.postAllOrFail([pay('c', '2'), pay('d', '2')], m))).rejects.toThrow();
    // Below zero in between, back above by the end of the batch: refused too, nothing is written.
    const unfreeze = { ...freeze(12, '0', 'e'), refId: 'pa-e', streamVersion: 1, movements: [{ ...userCoin(12, '5', LedgerCode.Unfreeze), frozen: '-5' }] };
    await expect(t.ds.transaction((m) => ledger.postAllOrFail([pay('c', '5'), unfreeze], m))).rejects.toMatchObject({ code: 2000 });
    expect(await ledger.balancesOf('user', 12)).toEqual([{ accountType: 'option', currencyId: USDT, available: '3', frozen: '7' }]);
    expect(await t.ds.query(`SELECT 1 FROM events WHERE command_id IN ('c', 'd', 'e')`)).toEqual([]);
    // An account remembered from a batch that rolled back: the batch fails, and the retry creates it.
    const credit = (id: string) => ({
      ...freeze(13, '0', id),
      refId: id,
      streamVersion: 1,
      movements: [userCoin(13, '5', LedgerCode.DepositIncrease), external('-5', LedgerCode.DepositIncrease)],
    });
    await expect(rolledBack((m) => ledger.postAllOrFail([credit('pa-rb-1')], m))).rejects.toThrow('roll back');
    await expect(t.ds.transaction((m) => ledger.postAllOrFail([credit('pa-rb-2')], m))).rejects.toThrow(LedgerAccountMissing);
    await t.ds.transaction((m) => ledger.postAllOrFail([credit('pa-rb-2')], m));
    expect(await ledger.balancesOf('user', 13)).toEqual([{ accountType: 'option', currencyId: USDT, available: '5', frozen: '0' }]);
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  });
  it('order-path statements are prepared once per connection (rows for UPDATE … RETURNING too); outside a transaction a plain query', async () => {
    const sql = 'UPDATE prepared_probe SET n = n + 1 WHERE id = $1 RETURNING id, n';
    const seen = await t.ds.transaction(async (m) => {
      await m.query('CREATE TEMP TABLE prepared_probe ON COMMIT DROP AS SELECT g AS id, 0 AS n FROM generate_series(1, 3) g');
      const first = await preparedQuery<{ id: number; n: number }>(m, 'test_prepared_probe', sql, [2]);
      const second = await preparedQuery<{ id: number; n: number }>(m, 'test_prepared_probe', sql, [2]);
      const prepared = await m.query(`SELECT name FROM pg_prepared_statements WHERE name = 'test_prepared_probe'`);
      return { first, second, prepared };
    });
    expect(seen.first).toEqual([{ id: 2, n: 1 }]);
    expect(seen.second).toEqual([{ id: 2, n: 2 }]);
    expect(seen.prepared).toEqual([{ name: 'test_prepared_probe' }]);
    expect(await preparedQuery(t.ds.manager, 'test_plain', 'SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
  });
});
