import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/infra/database/data-source';
import { MIGRATIONS } from '../src/infra/database/migrations';
import { BalancesUnbounded1795830000000 } from '../src/infra/database/migrations/1795830000000-BalancesUnbounded';
import { money, moneyString } from '../src/infra/money';
import { createDatabase } from './support/test-app';

/** The columns holding a balance (an account's, or one after a posting), as migration BalancesUnbounded lists them. */
const BALANCE_COLUMNS: Record<string, string[]> = {
  balances: ['available', 'frozen'],
  ledger_entries: ['available_after', 'frozen_after'],
  trades: ['maker', 'taker'].flatMap((side) =>
    ['pay_available_after', 'pay_frozen_after', 'receive_available_after', 'receive_frozen_after'].map((c) => `${side}_${c}`),
  ),
  orders: ['freeze_available_after', 'freeze_frozen_after', 'release_available_after', 'release_frozen_after'],
};
const VIEWS = ['ledger', 'trade_legs_maker', 'trade_legs_taker', 'order_freezes', 'order_releases'];
const AT = MIGRATIONS.indexOf(BalancesUnbounded1795830000000);

/** A DataSource on `url` that knows the migrations before BalancesUnbounded, and it too with `withIt`. */
async function migrations(url: string, withIt: boolean): Promise<DataSource> {
  const ds = new DataSource({ ...dataSourceOptions(url), migrations: MIGRATIONS.slice(0, AT + (withIt ? 1 : 0)) });
  await ds.initialize();
  return ds;
}

/**
 * Rows as the projector writes them (its guard lets only it), for user `u` (taker, buying) and `u + 1`
 * (maker): the user's trade account at `big` available and the external account at minus it, their
 * deposit entries, a spot order's freeze and release, and a trade's legs, each balance after `big`
 * (or near it) where a balance is large.
 */
async function project(ds: DataSource, u: number, big: string): Promise<void> {
  const id = u * 64;
  await ds.transaction(async (m) => {
    await m.query(`SET LOCAL kestrel.writer = 'projector'`);
    await m.query(
      `INSERT INTO balances (owner_type, owner_id, account_type, currency_id, available, frozen) VALUES ('user', $1::int, 'coin', 3, $2::numeric, 0), ('system', $1, 'external', 3, -$2, 0)`,
      [u, big],
    );
    await m.query(
      `INSERT INTO ledger_entries (id, event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id)
       VALUES ($1::bigint, 1, 'user', $2::int, 'coin', 3, 200, 5, 0, $3::numeric, 0, 'deposit', 'd'), ($1 + 1, 1, 'system', $2, 'external', 3, 200, -5, 0, -$3, 0, 'deposit', 'd')`,
      [id, u, big],
    );
    await m.query(
      `INSERT INTO orders (id, user_id, market_id, side, type, price, quantity, frozen_currency_id, frozen_left, status, frozen_amount,
         freeze_ledger_id, freeze_seq, freeze_available_after, freeze_frozen_after, release_ledger_id, release_seq, release_available_after, release_frozen_after)
       VALUES ($1::int, $1, 1, 'buy', 'limit', 10, 1, 3, 0, 'cancelled', 10, $2::bigint + 8, 2, $3::numeric - 10, 10, $2 + 16, 3, $3, 0)`,
      [u, id, big],
    );
    await m.query(
      `INSERT INTO trades (market_id, trade_id, price, quantity, quote_quantity, taker_side, maker_order_id, taker_order_id, maker_user_id, taker_user_id, maker_fee, taker_fee, executed_at,
         ledger_id, event_seq, base_currency_id, quote_currency_id, maker_pay_available_after, maker_pay_frozen_after, maker_receive_available_after, maker_receive_frozen_after,
         taker_pay_available_after, taker_pay_frozen_after, taker_receive_available_after, taker_receive_frozen_after)
       VALUES (1, $1::int, 10, 1, 10, 'buy', $1 + 1, $1, $1 + 1, $1, 0.01, 0.001, now(), $2::bigint + 24, 4, 1, 3, 1, 0, $3::numeric, 0, $3, 2, 0.999, 0)`,
      [u, id, big],
    );
  });
}

type Line = [id: number, owner: number, account: string, code: number, available: string, frozen: string, availableAfter: string, frozenAfter: string];

/** The ledger lines `project` makes, in id order. */
function expected(u: number, big: string): Line[] {
  const id = u * 64;
  const plus = (d: string) => moneyString(money(big).plus(d));
  return [
    [id, u, 'coin', 200, '5', '0', big, '0'],
    [id + 1, u, 'external', 200, '-5', '0', `-${big}`, '0'],
    [id + 8, u, 'coin', 901, '-10', '10', plus('-10'), '10'],
    [id + 16, u, 'coin', 902, '10', '-10', big, '0'],
    // The buyer (taker) pays 10 quote from frozen and receives 1 base less its fee; the seller (maker) pays 1 base and receives 10 quote less its fee.
    [id + 24, u, 'coin', 600, '0', '-10', big, '2'],
    [id + 25, u, 'coin', 602, '1', '0', '1', '0'],
    [id + 26, u + 1, 'coin', 600, '0', '-1', '1', '0'],
    [id + 27, u + 1, 'coin', 602, '10', '0', plus('0.01'), '0'],
    [id + 28, u, 'coin', 601, '-0.001', '0', '0.999', '0'],
    [id + 29, u + 1, 'coin', 601, '-0.01', '0', big, '0'],
  ];
}

/** User `u`'s lines of the ledger (the view: entries, trade legs, order postings), amounts as trimmed text. */
async function ledgerOf(ds: DataSource, u: number): Promise<Line[]> {
  const rows: Array<Record<string, string | number>> = await ds.query(
    `SELECT id::int, owner_id, account_type, code, trim_scale(available_delta)::text AS a, trim_scale(frozen_delta)::text AS f,
            trim_scale(available_after)::text AS aa, trim_scale(frozen_after)::text AS fa
     FROM ledger WHERE owner_id IN ($1, $1 + 1) ORDER BY id`,
    [u],
  );
  return rows.map((r) => [r.id, r.owner_id, r.account_type, r.code, r.a, r.f, r.aa, r.fa] as Line);
}

const columnTypes = async (ds: DataSource, relations: string[]): Promise<Array<{ relation: string; column: string; type: string }>> =>
  ds.query(
    `SELECT c.relname AS relation, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     WHERE c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped AND (a.attname LIKE '%available%' OR a.attname LIKE '%frozen%')`,
    [relations],
  );

const viewDefinitions = async (ds: DataSource) =>
  Object.fromEntries(
    await Promise.all(VIEWS.map(async (v) => [v, ((await ds.query(`SELECT pg_get_viewdef($1::regclass) AS d`, [v])) as Array<{ d: string }>)[0].d])),
  );

const tableFiles = (ds: DataSource) => ds.query(`SELECT relname, relfilenode FROM pg_class WHERE relname = ANY($1) ORDER BY 1`, [Object.keys(BALANCE_COLUMNS)]);

describe('migration BalancesUnbounded: balances and balances after are unbounded numeric (real PostgreSQL)', () => {
  it('lifts numeric(36,18) from every balance column without a rewrite, keeping what the ledger reads; balances past 10^18 whole units are then stored and read exactly; down restores the bounds and the views', async () => {
    const db = await createDatabase();
    let ds = await migrations(db.url, false);
    try {
      await ds.runMigrations({ transaction: 'each' });
      // Before: a balance of 10^18 whole units could not be stored (the projection stopped on it for good).
      await expect(project(ds, 1, '1000000000000000000')).rejects.toThrow('numeric field overflow');
      await project(ds, 1, '999999999999999999');
      expect(await ledgerOf(ds, 1)).toEqual(expected(1, '999999999999999999'));
      const views = await viewDefinitions(ds);
      const files = await tableFiles(ds);
      await ds.destroy();

      ds = await migrations(db.url, true);
      await ds.runMigrations({ transaction: 'each' });
      const types = await columnTypes(ds, [...Object.keys(BALANCE_COLUMNS), ...VIEWS]);
      for (const [relation, columns] of Object.entries(BALANCE_COLUMNS))
        for (const column of columns) expect(types).toContainEqual({ relation, column, type: 'numeric' });
      for (const relation of VIEWS)
        for (const column of ['available_after', 'frozen_after']) expect(types).toContainEqual({ relation, column, type: 'numeric' });
      // The amounts keep their bounds.
      for (const column of ['available_delta', 'frozen_delta']) expect(types).toContainEqual({ relation: 'ledger_entries', column, type: 'numeric(36,18)' });
      expect(types).toContainEqual({ relation: 'orders', column: 'frozen_amount', type: 'numeric(36,18)' });
      // No table was rewritten, and the ledger reads as before.
      expect(await tableFiles(ds)).toEqual(files);
      expect(await ledgerOf(ds, 1)).toEqual(expected(1, '999999999999999999'));

      // Past 10^18 whole units (and minus that in external): stored, and read back exactly through the views.
      const big = '1800000000000000000.123456789012345678';
      await project(ds, 5, big);
      expect(await ledgerOf(ds, 5)).toEqual(expected(5, big));

      // Down: refused while a balance does not fit (nothing changed), then the bounds and the views as they were.
      await expect(ds.undoLastMigration({ transaction: 'each' })).rejects.toThrow('numeric field overflow');
      expect(await ledgerOf(ds, 5)).toEqual(expected(5, big));
      await ds.transaction(async (m) => {
        await m.query(`SET LOCAL kestrel.writer = 'projector'`);
        await m.query(`DELETE FROM balances WHERE owner_id = 5`);
        await m.query(`ALTER TABLE ledger_entries DISABLE TRIGGER tr_ledger_entries_append_only`);
        await m.query(`DELETE FROM ledger_entries WHERE owner_id = 5`);
        await m.query(`ALTER TABLE ledger_entries ENABLE TRIGGER tr_ledger_entries_append_only`);
        await m.query(`ALTER TABLE trades DISABLE TRIGGER tr_trades_writer; ALTER TABLE orders DISABLE TRIGGER tr_orders_writer`);
        await m.query(`DELETE FROM trades WHERE trade_id = 5; DELETE FROM orders WHERE id = 5`);
        await m.query(`ALTER TABLE trades ENABLE TRIGGER tr_trades_writer; ALTER TABLE orders ENABLE TRIGGER tr_orders_writer`);
      });
      await ds.undoLastMigration({ transaction: 'each' });
      for (const [relation, columns] of Object.entries(BALANCE_COLUMNS))
        for (const column of columns) expect(await columnTypes(ds, [relation])).toContainEqual({ relation, column, type: 'numeric(36,18)' });
      expect(await viewDefinitions(ds)).toEqual(views);
      expect(await ledgerOf(ds, 1)).toEqual(expected(1, '999999999999999999'));
    } finally {
      await ds.destroy().catch(() => undefined);
      await db.drop();
    }
  });
});
