import type { PoolClient, QueryResult } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { arrayLiteral, preparedQuery } from '../../infra/database/sql';
import { units, unitsString } from '../../infra/money';
import { writeCandles } from '../market/candle-writer';
import type { TradeTick } from './engine-bus';
import type { Market as EngineMarket } from '@kestrel/matching-engine';
import { accountKey } from './sequencer/balances';
import type { AccountKey, AppliedLeg, OrderState, SeqOutcome, TradeRecord } from './sequencer/commands';

/**
 * Amounts travel to PostgreSQL as integer ledger units and are scaled there: a numeric product is
 * exact (its scale is the sum of the scales), and the integers cost no formatting here.
 */
const U = '0.000000000000000001';

/** One array literal per column (a `$n::type[]` parameter of ROWS). */
const literals = (columns: unknown[][]): string[] => columns.map((col) => arrayLiteral(col as Array<string | number | null>));

/** Opens a projection transaction: one simple query (no parameters), one round trip. */
const OPEN = `BEGIN; SET LOCAL kestrel.writer = 'projector'; SET LOCAL synchronous_commit = off; SELECT seq FROM sequencer_projection WHERE id = 1 FOR UPDATE`;

/**
 * A projection's rows in one statement, one round trip: the sequencer's accounts' balances
 * ($1–$6), the ledger entries ($7–$20, in order: their ids follow it), the orders ($21–$37, an
 * order seen before is updated) and the trades ($38–$50). Each part is a data-modifying CTE on a
 * table of its own; PostgreSQL runs every one to completion, checks each row's constraints as it
 * writes it, and fires the writer guard's statement triggers after all of them. An empty array
 * inserts nothing. The owned balances are locked here, after the database accounts' statements:
 * nothing but the projector locks those rows (the guard refuses any other writer of them).
 */
const ROWS = `WITH
  balances_part AS (
    INSERT INTO balances (owner_type, owner_id, account_type, currency_id, available, frozen)
    SELECT ot, oi, at, ci, a * ${U}, f * ${U} FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[], $5::numeric[], $6::numeric[]) v(ot, oi, at, ci, a, f)
    ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO UPDATE SET available = EXCLUDED.available, frozen = EXCLUDED.frozen, updated_at = now()),
  entries_part AS (
    INSERT INTO ledger_entries (event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo, created_at)
    SELECT s, ot, oi, at, ci, cd, da * ${U}, df * ${U}, aa * ${U}, fa * ${U}, rt, ri, me, to_timestamp(ts / 1000.0)
    FROM unnest($7::bigint[], $8::varchar[], $9::int[], $10::varchar[], $11::int[], $12::int[], $13::numeric[], $14::numeric[], $15::numeric[], $16::numeric[], $17::varchar[], $18::varchar[], $19::varchar[], $20::bigint[])
      WITH ORDINALITY x(s, ot, oi, at, ci, cd, da, df, aa, fa, rt, ri, me, ts, n) ORDER BY n),
  orders_part AS (
    INSERT INTO orders (id, user_id, market_id, side, type, price, quantity, quote_amount, filled_qty, filled_quote, fee, frozen_currency_id, frozen_left, status, client_order_id, created_at, updated_at)
    SELECT id, u, mk, sd, tp, pr, q, qa, fq * ${U}, fqt * ${U}, fe * ${U}, fc, fl * ${U}, st, co, to_timestamp(ct / 1000.0), to_timestamp(ut / 1000.0)
    FROM unnest($21::bigint[], $22::int[], $23::int[], $24::varchar[], $25::varchar[], $26::numeric[], $27::numeric[], $28::numeric[], $29::numeric[], $30::numeric[], $31::numeric[], $32::int[], $33::numeric[], $34::varchar[], $35::varchar[], $36::bigint[], $37::bigint[])
      v(id, u, mk, sd, tp, pr, q, qa, fq, fqt, fe, fc, fl, st, co, ct, ut)
    ON CONFLICT (id) DO UPDATE SET filled_qty = EXCLUDED.filled_qty, filled_quote = EXCLUDED.filled_quote, fee = EXCLUDED.fee,
      frozen_left = EXCLUDED.frozen_left, status = EXCLUDED.status, updated_at = EXCLUDED.updated_at),
  trades_part AS (
    INSERT INTO trades (market_id, trade_id, price, quantity, quote_quantity, taker_side, maker_order_id, taker_order_id, maker_user_id, taker_user_id, maker_fee, taker_fee, executed_at)
    SELECT mk, id, pr, q, qq, sd, mo, tko, mu, tu, mf * ${U}, tf * ${U}, to_timestamp(ts / 1000.0)
    FROM unnest($38::int[], $39::bigint[], $40::numeric[], $41::numeric[], $42::numeric[], $43::varchar[], $44::bigint[], $45::bigint[], $46::int[], $47::int[], $48::numeric[], $49::numeric[], $50::bigint[])
      v(mk, id, pr, q, qq, sd, mo, tko, mu, tu, mf, tf, ts))
SELECT 1`;

/**
 * The applied posting commands' ids (a retry past the sequencer's window is answered from them):
 * a statement of its own, sent only by the transactions that have some (orders and trades have none).
 */
const COMMANDS = `INSERT INTO sequencer_commands (command_id, seq, applied_at)
  SELECT id, s, to_timestamp(ts / 1000.0) FROM unnest($1::text[], $2::bigint[], $3::bigint[]) v(id, s, ts)
  ON CONFLICT (command_id) DO NOTHING`;

/** One journaled batch as applied: what the projector writes for it. */
export interface AppliedBatch {
  seq: number;
  ts: number;
  outcomes: SeqOutcome[];
}

/** How far a projection transaction took the read tables (the host pushes from its own outcomes). */
export interface Projected {
  seq: number;
}

/** What the projector needs of the markets: the engine's unit converters. */
export interface MarketLookup {
  byIdOrUndefined(id: number): { engine: EngineMarket } | undefined;
}

/** A ledger entry as the projector writes it: one leg of a posting, with its batch. */
export interface ProjectedEntry {
  seq: number;
  ts: number;
  refType: string;
  refId: string;
  memo: string;
  leg: AppliedLeg;
}

/** What a projection transaction writes for these batches, in the sequencer's order (pure). */
export function projectionRows(batches: AppliedBatch[]): {
  orders: Map<number, OrderState>;
  trades: TradeRecord[];
  entries: ProjectedEntry[];
  commands: Array<{ id: string; seq: number; ts: number }>;
} {
  const orders = new Map<number, OrderState>();
  const trades: TradeRecord[] = [];
  const entries: ProjectedEntry[] = [];
  // The applied posting commands (a retry past the sequencer's window is answered from their rows).
  const commands: Array<{ id: string; seq: number; ts: number }> = [];
  // The house's side of spot fees: one entry per fee account for a run of trades, not one per
  // trade. A run ends where another posting touches that account (a referral rebate paid from
  // it): the merged entry is written there, so the entries stay in the sequencer's order, each
  // balance after follows from the one before, and the account's balance is its last leg's.
  const fees = new Map<string, { leg: AppliedLeg; from: number; seq: number; ts: number }>();
  const flush = (key: string) => {
    const f = fees.get(key);
    if (!f) return;
    fees.delete(key);
    entries.push({
      seq: f.seq,
      ts: f.ts,
      refType: 'spot-fees',
      refId: f.from === f.seq ? String(f.seq) : `${f.from}-${f.seq}`,
      memo: 'spot trading fees',
      leg: f.leg,
    });
  };
  for (const b of batches) {
    for (const o of b.outcomes) {
      for (const ord of o.orders) orders.set(ord.id, ord);
      trades.push(...o.trades);
      for (const p of o.postings) {
        if (p.commandId !== undefined) commands.push({ id: p.commandId, seq: b.seq, ts: b.ts });
        for (const leg of p.legs) {
          if (leg.accountType !== 'spot-fee') entries.push({ seq: b.seq, ts: b.ts, refType: p.refType, refId: p.refId, memo: p.memo, leg });
          else if (p.refType === 'trade') {
            const key = accountKey(leg);
            const f = fees.get(key);
            fees.set(key, { leg: { ...leg, available: (f?.leg.available ?? 0n) + leg.available }, from: f?.from ?? b.seq, seq: b.seq, ts: b.ts });
          } else {
            flush(accountKey(leg));
            entries.push({ seq: b.seq, ts: b.ts, refType: p.refType, refId: p.refId, memo: p.memo, leg });
          }
        }
      }
    }
  }
  for (const key of [...fees.keys()]) flush(key);
  return { orders, trades, entries, commands };
}

/**
 * Writes the read side of the sequencer (DESIGN §4, emmett's processor + checkpoint): ledger
 * entries, the balances of the sequencer's accounts (and of the database accounts its postings
 * credit), orders, trades and K-lines, in bulk, with the watermark in the same transaction.
 * Each transaction covers whole batches, so it ends on a command boundary: the trial balance
 * holds at every commit. It is the only writer of those accounts (the database guard lets
 * nothing else write them: `kestrel.writer`).
 */
export class Projector {
  constructor(
    private readonly dataSource: DataSource,
    private readonly markets: MarketLookup,
  ) {}

  async watermark(m: EntityManager = this.dataSource.manager): Promise<number> {
    const [r] = await m.query('SELECT seq FROM sequencer_projection WHERE id = 1');
    return r ? Number(r.seq) : 0;
  }

  /** Projects `batches` (consecutive, after the watermark) in one transaction. */
  async project(batches: AppliedBatch[]): Promise<Projected> {
    const last = batches[batches.length - 1].seq;
    const first = batches[0].seq;
    const { orders, trades, entries, commands } = projectionRows(batches);
    // The watermark goes into the commit's text (`last` is an integer of ours, not input).
    if (!Number.isSafeInteger(last)) throw new Error(`projector: batch seq ${last} is not an integer`);
    const runner = this.dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    const m = runner.manager;
    try {
      // One round trip opens the transaction, marks it as the projector's and takes the watermark.
      // The journal is the durable record: a projection lost in a crash (with its watermark, atomically) is projected again on
      // restart, so its commit need not wait for the disk (and the journal's commits wait less behind it).
      // Exactly once even with two projectors (an engine that was paused past its lease and a new holder): the
      // watermark row is locked and must be just before this run, else someone else projected it.
      const opened = (await client.query(OPEN)) as unknown as QueryResult<{ seq: string }>[];
      const [w] = opened[opened.length - 1].rows;
      if (w && Number(w.seq) !== first - 1) throw new ProjectionConflict(first, Number(w.seq));
      // The rows in one statement (its parts are independent: each inserts into its own table).
      const [owned, ledger] = await this.entryColumns(m, entries);
      const [trade, candles] = this.tradeColumns(trades);
      await preparedQuery(m, 'kestrel-projector-rows', ROWS, [...owned, ...ledger, ...this.orderColumns([...orders.values()]), ...trade]);
      if (commands.length)
        await preparedQuery(
          m,
          'kestrel-projector-commands',
          COMMANDS,
          literals([commands.map((c) => c.id), commands.map((c) => c.seq), commands.map((c) => c.ts)]),
        );
      for (const [marketId, ticks] of candles) await writeCandles(m, marketId, ticks);
      // The watermark and the commit in one round trip.
      await client.query(`INSERT INTO sequencer_projection (id, seq) VALUES (1, ${last}) ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq; COMMIT`);
    } catch (err) {
      // A connection that broke is dropped from the pool by its error event (TypeORM's runner).
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
    return { seq: last };
  }

  /**
   * Ledger entries and balances: the columns of the sequencer's accounts' balances and of the
   * entries, for ROWS. The sequencer's accounts carry their balances after each leg; a database
   * account's (external, transit, option…) are worked out here: its change is added under the row
   * lock (statements of their own, before ROWS: deposits, withdrawals and transfers, not trades),
   * and each entry's balance after is walked back from the new total.
   */
  private async entryColumns(m: EntityManager, entries: ProjectedEntry[]): Promise<[string[], string[]]> {
    const owned = new Map<string, { key: AccountKey; available: bigint; frozen: bigint }>();
    const outside = new Map<string, { key: AccountKey; available: bigint; frozen: bigint }>();
    for (const { leg } of entries) {
      const k = accountKey(leg);
      if (leg.availableAfter !== undefined) owned.set(k, { key: leg, available: leg.availableAfter, frozen: leg.frozenAfter! });
      else {
        const cur = outside.get(k) ?? { key: leg, available: 0n, frozen: 0n };
        cur.available += leg.available;
        cur.frozen += leg.frozen;
        outside.set(k, cur);
      }
    }
    const cols = (rows: Array<{ key: AccountKey; available: bigint; frozen: bigint }>) =>
      [
        rows.map((r) => r.key.ownerType),
        rows.map((r) => r.key.ownerId),
        rows.map((r) => r.key.accountType),
        rows.map((r) => r.key.currencyId),
        rows.map((r) => r.available),
        rows.map((r) => r.frozen),
      ].map(arrayLiteral);
    const after = new Map<string, { available: bigint; frozen: bigint }>();
    if (outside.size) {
      const rows = [...outside.values()].sort((a, b) => (accountKey(a.key) < accountKey(b.key) ? -1 : 1));
      // Adds each change under the row lock, in one global order; rows are created first (with
      // zero: a CHECK is tested on an insert's candidate row, even one that becomes an update).
      // The balance's own CHECK refuses a negative non-external account (the sequencer only debits external and transit).
      const [ot, oi, at, ci, da, df] = cols(rows);
      await preparedQuery(
        m,
        'kestrel-projector-accounts',
        `INSERT INTO balances (owner_type, owner_id, account_type, currency_id) SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[])
         ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO NOTHING`,
        [ot, oi, at, ci],
      );
      // Locked first, one by one in the order every ledger posting locks accounts (the account key's
      // text, as LedgerService.post sorts them): the UPDATE below locks in its join's order, which
      // deadlocked with a transfer's posting locking the same accounts (PostgreSQL chose either as the victim).
      await preparedQuery(
        m,
        'kestrel-projector-lock-outside',
        `SELECT 1 FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[]) WITH ORDINALITY x(ot, oi, at, ci, n)
         JOIN balances b ON b.owner_type = x.ot AND b.owner_id = x.oi AND b.account_type = x.at AND b.currency_id = x.ci
         ORDER BY x.n FOR UPDATE OF b`,
        [ot, oi, at, ci],
      );
      const res = await preparedQuery<{ owner_type: string; owner_id: number; account_type: string; currency_id: number; available: string; frozen: string }>(
        m,
        'kestrel-projector-outside',
        `UPDATE balances b SET available = b.available + v.da * ${U}, frozen = b.frozen + v.df * ${U}, updated_at = now()
         FROM (SELECT * FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[], $5::numeric[], $6::numeric[]) x(ot, oi, at, ci, da, df) ORDER BY 1, 2, 3, 4) v
         WHERE b.owner_type = v.ot AND b.owner_id = v.oi AND b.account_type = v.at AND b.currency_id = v.ci
         RETURNING b.owner_type, b.owner_id, b.account_type, b.currency_id, b.available::text, b.frozen::text`,
        [ot, oi, at, ci, da, df],
      );
      for (const r of res) {
        const k = accountKey({
          ownerType: r.owner_type as AccountKey['ownerType'],
          ownerId: r.owner_id,
          accountType: r.account_type,
          currencyId: r.currency_id,
        });
        after.set(k, { available: units(r.available), frozen: units(r.frozen) });
      }
    }
    // Running balances of database accounts: walk back from the new totals.
    const runs: Array<[bigint, bigint]> = new Array(entries.length);
    for (let i = entries.length - 1; i >= 0; i--) {
      const l = entries[i].leg;
      if (l.availableAfter !== undefined) {
        runs[i] = [l.availableAfter, l.frozenAfter!];
        continue;
      }
      const b = after.get(accountKey(l))!;
      runs[i] = [b.available, b.frozen];
      b.available -= l.available;
      b.frozen -= l.frozen;
    }
    const c: unknown[][] = Array.from({ length: 14 }, () => []);
    entries.forEach((e, i) => {
      const l = e.leg;
      [
        e.seq,
        l.ownerType,
        l.ownerId,
        l.accountType,
        l.currencyId,
        l.code,
        l.available,
        l.frozen,
        runs[i][0],
        runs[i][1],
        e.refType,
        e.refId,
        e.memo.slice(0, 200),
        e.ts,
      ].forEach((v, j) => c[j].push(v));
    });
    return [cols([...owned.values()]), literals(c)];
  }

  /** The orders' columns for ROWS (each order as it is after these batches). */
  private orderColumns(orders: OrderState[]): string[] {
    const c: unknown[][] = Array.from({ length: 16 }, () => []);
    for (const o of orders) {
      const e = this.markets.byIdOrUndefined(o.marketId)?.engine;
      if (!e) throw new Error(`projector: unknown market ${o.marketId}`);
      [
        o.id,
        o.userId,
        o.marketId,
        o.side,
        o.type,
        o.price ? e.ticksToPrice(o.price) : null,
        o.qty ? e.lotsToQty(o.qty) : null,
        o.quoteBudget ? e.unitsToQuote(o.quoteBudget) : null,
        o.filledQty,
        o.filledQuote,
        o.fee,
        o.frozenCurrency,
        o.frozenLeft,
        o.status,
        o.clientOrderId,
        o.createdTs,
      ].forEach((v, j) => c[j].push(v));
    }
    c.push(orders.map((o) => o.updatedTs));
    return literals(c);
  }

  /** The trades' columns for ROWS, and each market's trades for its K-lines. */
  private tradeColumns(trades: TradeRecord[]): [string[], Map<number, TradeTick[]>] {
    const byMarket = new Map<number, TradeTick[]>();
    const c: unknown[][] = Array.from({ length: 13 }, () => []);
    for (const t of trades) {
      const tick = tradeTick(this.markets, t);
      const list = byMarket.get(t.marketId) ?? [];
      list.push(tick);
      byMarket.set(t.marketId, list);
      [
        t.marketId,
        t.tradeId,
        tick.price,
        tick.quantity,
        tick.quoteQuantity,
        t.takerSide,
        t.makerOrderId,
        t.takerOrderId,
        t.makerUserId,
        t.takerUserId,
        t.makerFee,
        t.takerFee,
        t.ts,
      ].forEach((v, j) => c[j].push(v));
    }
    return [literals(c), byMarket];
  }
}

/** A trade as market data shows it (decimal strings). */
export function tradeTick(markets: MarketLookup, t: TradeRecord): TradeTick {
  const e = markets.byIdOrUndefined(t.marketId)!.engine;
  return {
    marketId: t.marketId,
    tradeId: t.tradeId,
    price: e.ticksToPrice(t.price),
    quantity: unitsString(t.qty),
    quoteQuantity: unitsString(t.quote),
    takerSide: t.takerSide,
    ts: t.ts,
  };
}

/** The watermark is not just before the batches to project: another projector wrote them (or a gap). */
export class ProjectionConflict extends Error {
  constructor(
    first: number,
    readonly watermark: number,
  ) {
    super(`projection of batch ${first} refused: the watermark is at ${watermark}`);
  }
}
