import type { PoolClient, QueryResult } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { arrayLiteral, copyField, copyIn, preparedQuery } from '../../infra/database/sql';
import { units, unitsString } from '../../infra/money';
import { LedgerCode } from '../ledger/ledger-codes';
import { writeCandles } from '../market/candle-writer';
import type { TradeTick } from './engine-bus';
import { createMarket, type Market as EngineMarket } from '@kestrel/matching-engine';
import { accountKey } from './sequencer/balances';
import type { AccountKey, AppliedLeg, AppliedPosting, MarketParams, OrderState, SeqOutcome, TradeRecord } from './sequencer/commands';

/**
 * In the statements with parameters (ROWS and the others) amounts travel as integer ledger units
 * and are scaled there: a numeric product is exact (its scale is the sum of the scales). The rows
 * sent by COPY carry them as decimals (`unitsString`).
 */
const U = '0.000000000000000001';

/** One array literal per column (a `$n::type[]` parameter of ROWS). */
const literals = (columns: unknown[][]): string[] => columns.map((col) => arrayLiteral(col as Array<string | number | null>));

/**
 * Opens a projection transaction: one simple query (no parameters), one round trip. With
 * `lockWaitMs` the watermark row is waited for that long at most (then ProjectionBlocked), and
 * the transaction's other statements wait as long as they must.
 */
const open = (lockWaitMs?: number) => {
  const watermark = 'SELECT seq FROM sequencer_projection WHERE id = 1 FOR UPDATE';
  return `BEGIN; SET LOCAL kestrel.writer = 'projector'; SET LOCAL synchronous_commit = off; ${
    lockWaitMs === undefined ? watermark : `SET LOCAL lock_timeout = ${lockWaitMs}; ${watermark}; SET LOCAL lock_timeout = 0`
  }`;
};

/** The application name of the projector thread's connections (a stuck one is ended by the next projection: END_STUCK). */
export const PROJECTOR_APPLICATION = 'kestrel-projector';

/** How long a projector waits for the watermark row at a time before it looks for a stuck holder of it. */
const WATERMARK_WAIT_MS = 200;

/**
 * Ends the projector sessions (of any process) that hold the watermark table, wait for their
 * client (`ClientRead`) and whose transaction has been open longer than the lease: the projection
 * of an engine paused past its lease. A `COPY` paused mid-stream is a running statement waiting for
 * its client's rows, which no timeout of PostgreSQL's ends (`idle_in_transaction_session_timeout`
 * ends one paused between statements), and it holds the watermark row. A live projection takes
 * milliseconds, and one waiting for a lock or working in PostgreSQL is left alone; an ended one is
 * rolled back, and its batches are projected by whoever holds the watermark next (exactly once).
 * Answers how many were ended.
 */
const END_STUCK = `SELECT count(*) FILTER (WHERE pg_terminate_backend(a.pid))::int AS ended FROM pg_stat_activity a
  WHERE a.application_name = '${PROJECTOR_APPLICATION}' AND a.datname = current_database() AND a.pid <> pg_backend_pid()
    AND a.xact_start < now() - make_interval(secs => $1 / 1000.0) AND a.wait_event = 'ClientRead'
    AND a.pid IN (SELECT l.pid FROM pg_locks l WHERE l.relation = 'sequencer_projection'::regclass AND l.granted)`;

/**
 * The rows a projection inserts, by COPY (`copyIn`, COPY's text format): the ledger entries in the
 * sequencer's order, each with the id the projection reserved for its place; the orders its
 * commands made; and the trades, each with its ledger posting (the place of its legs and each
 * side's balances after it: the view `ledger` shows the legs). COPY costs PostgreSQL half of what
 * the same rows cost as unnest arrays of an INSERT (the arrays' literals are parsed whole first).
 */
const LEDGER = `COPY ledger_entries (id, event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo, created_at) FROM STDIN`;
const NEW_ORDERS = `COPY orders (id, user_id, market_id, side, type, price, quantity, quote_amount, filled_qty, filled_quote, fee, frozen_currency_id, frozen_left, status, client_order_id, created_at, updated_at,
  frozen_amount, freeze_ledger_id, freeze_seq, freeze_available_after, freeze_frozen_after, release_ledger_id, release_seq, release_available_after, release_frozen_after) FROM STDIN`;
const TRADES = `COPY trades (market_id, trade_id, price, quantity, quote_quantity, taker_side, maker_order_id, taker_order_id, maker_user_id, taker_user_id, maker_fee, taker_fee, executed_at,
  ledger_id, event_seq, base_currency_id, quote_currency_id, maker_pay_available_after, maker_pay_frozen_after, maker_receive_available_after, maker_receive_frozen_after,
  taker_pay_available_after, taker_pay_frozen_after, taker_receive_available_after, taker_receive_frozen_after) FROM STDIN`;

/**
 * Ledger ids for `n` places in the ledger's order, taken in one statement of the projection's
 * opening round trip (ascending: one session's nextval calls in a row). The sequence steps by 8, so
 * each id is the first of eight free ones: an entry takes one, a trade's posting its legs' six.
 */
const reserveIds = (n: number) => `SELECT array_to_string(array_agg(nextval('ledger_entries_id_seq')), ',') AS ids FROM generate_series(1, ${n})`;

/** A batch's time as COPY takes a timestamptz (to the millisecond, as the journal has it), formatted once for a run of rows. */
class CopyTime {
  private ts = NaN;
  private text = '';
  of(ts: number): string {
    if (ts !== this.ts) this.text = new Date((this.ts = ts)).toISOString();
    return this.text;
  }
}

/**
 * The rows a projection changes, in one statement, one round trip: the sequencer's accounts'
 * balances ($1–$6) and the orders made by earlier commands ($7–$13: their fills, fee, frozen
 * remainder and status; $14–$18: the release of what was still frozen when one left the book, and
 * the amount it froze, kept for an order projected before its row stored it). Each part is a data-modifying CTE on a table of its own; PostgreSQL runs
 * every one to completion, checks each row's constraints as it writes it, and fires the writer
 * guard's statement triggers after all of them (the ledger's fire at the end of its COPY). It
 * answers how many orders it updated: each of them must exist (one its commands made was inserted
 * when they were projected), so fewer is a broken read model and the projection is refused. An
 * empty array writes nothing. The owned balances are locked here, after the database accounts' statements:
 * nothing but the projector locks those rows (the guard refuses any other writer of them).
 */
const ROWS = `WITH
  balances_part AS (
    INSERT INTO balances (owner_type, owner_id, account_type, currency_id, available, frozen)
    SELECT ot, oi, at, ci, a * ${U}, f * ${U} FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[], $5::numeric[], $6::numeric[]) v(ot, oi, at, ci, a, f)
    ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO UPDATE SET available = EXCLUDED.available, frozen = EXCLUDED.frozen, updated_at = now()),
  orders_part AS (
    UPDATE orders o SET filled_qty = v.fq * ${U}, filled_quote = v.fqt * ${U}, fee = v.fe * ${U}, frozen_left = v.fl * ${U}, status = v.st, updated_at = to_timestamp(v.ut / 1000.0),
      release_ledger_id = COALESCE(v.rl, o.release_ledger_id), release_seq = COALESCE(v.rs, o.release_seq),
      release_available_after = COALESCE(v.ra * ${U}, o.release_available_after), release_frozen_after = COALESCE(v.rf * ${U}, o.release_frozen_after),
      frozen_amount = COALESCE(o.frozen_amount, v.fa * ${U})
    FROM unnest($7::bigint[], $8::numeric[], $9::numeric[], $10::numeric[], $11::numeric[], $12::varchar[], $13::bigint[],
      $14::bigint[], $15::bigint[], $16::numeric[], $17::numeric[], $18::numeric[]) v(id, fq, fqt, fe, fl, st, ut, rl, rs, ra, rf, fa)
    WHERE o.id = v.id RETURNING 1)
SELECT count(*)::int AS orders FROM orders_part`;

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
  /**
   * By outcome, for one that made an order or trades: its market's parameters as the sequencer had
   * them when it applied the command, the units of that order's ticks and lots and of those trades'
   * prices (`applyBatch`). A market's units change through the journal (a new tick on an empty book),
   * so these, not the markets the projector started with, convert them; without them the lookup does.
   */
  markets?: ReadonlyArray<MarketParams | undefined>;
}

/** How far a projection transaction took the read tables (the host pushes from its own outcomes). */
export interface Projected {
  seq: number;
}

/** What the projector needs of the markets: the engine's unit converters. */
export interface MarketLookup {
  byIdOrUndefined(id: number): { engine: EngineMarket } | undefined;
}

/** One converter per market parameters (the sequencer's own object: a new one each time a `market` command sets them). */
const converters = new WeakMap<MarketParams, EngineMarket>();

/** The unit converter of a market's parameters as the journal set them. */
export function unitsOf(p: MarketParams): EngineMarket {
  let e = converters.get(p);
  if (!e) converters.set(p, (e = createMarket({ symbol: p.symbol, tickSize: p.tickSize, lotSize: p.lotSize, minQty: p.lotSize })));
  return e;
}

/** A ledger entry as the projector writes it: one leg of a posting, with its batch and its place in the ledger's order. */
export interface ProjectedEntry {
  slot: number;
  seq: number;
  ts: number;
  refType: string;
  refId: string;
  memo: string;
  leg: AppliedLeg;
}

/** An account and its balances (after the postings, or a change to add). */
type AccountTotal = { key: AccountKey; available: bigint; frozen: bigint };

/** An account's balances after a posting: [available, frozen]. */
export type After = readonly [bigint, bigint];

/**
 * A trade's posting as its row stores it: its place in the ledger's order, and each side's two
 * accounts after it (the currency it paid from frozen, the one it received, net of its fee).
 */
export interface TradeLedger {
  slot: number;
  /** The market's currencies (the buyer pays quote and receives base). */
  base: number;
  quote: number;
  buyer: { pay: After; receive: After };
  seller: { pay: After; receive: After };
}

/** An order's freeze (901) or release (902) as its row stores it: its place in the ledger's order, its batch, the leg. */
export interface OrderPosting {
  slot: number;
  seq: number;
  leg: AppliedLeg;
}

/**
 * The order whose freeze or release (the sequencer's own posting, one trade-account leg: place and
 * close) this is, and which of the two; undefined for any other posting.
 */
function orderPosting(p: AppliedPosting): [number, 'freeze' | 'release'] | undefined {
  if (p.refType !== 'order' || p.commandId !== undefined || p.legs.length !== 1) return undefined;
  const [l] = p.legs;
  if (l.accountType !== 'coin' || l.availableAfter === undefined) return undefined;
  const kind = l.code === LedgerCode.Freeze ? 'freeze' : l.code === LedgerCode.Unfreeze ? 'release' : undefined;
  return kind && [Number(p.refId), kind];
}

/** A trade as the projector writes it: the sequencer's record, its batch and its ledger posting. */
export interface ProjectedTrade {
  record: TradeRecord;
  seq: number;
  ledger: TradeLedger;
  /** Its market's parameters when it was made (AppliedBatch.markets), if the batch carries them. */
  market?: MarketParams;
}

/**
 * The trade-account legs of a trade's posting in the sequencer's shape (sequencer.tradePosting):
 * the buyer's 600 (quote) and 602 (base), the seller's 600 (base) and 602 (quote), then each fee
 * leg (601) on the account its side received, with the house's. Anything else is a broken
 * invariant: the projection is refused rather than written wrong.
 */
function tradeLedger(p: AppliedPosting, slot: number): TradeLedger {
  const [buyerPays, buyerGets, sellerPays, sellerGets] = p.legs;
  const shaped =
    p.legs.length >= 4 &&
    [buyerPays, buyerGets, sellerPays, sellerGets].every(
      (l, i) => l.accountType === 'coin' && l.code === (i % 2 ? LedgerCode.CoinTradeIncrease : LedgerCode.CoinTradeDeduction) && l.availableAfter !== undefined,
    );
  if (!shaped) throw new Error(`projector: trade ${p.refId}'s posting is not in the sequencer's shape`);
  let buyerFee = 0n;
  let sellerFee = 0n;
  for (let i = 4; i < p.legs.length; i++) {
    const l = p.legs[i];
    if (l.accountType !== 'coin') continue;
    if (l.ownerId === buyerGets.ownerId && l.currencyId === buyerGets.currencyId) buyerFee = -l.available;
    else if (l.ownerId === sellerGets.ownerId && l.currencyId === sellerGets.currencyId) sellerFee = -l.available;
    else throw new Error(`projector: trade ${p.refId}'s posting has a fee leg on another account`);
  }
  const after = (l: AppliedLeg, fee = 0n): After => [l.availableAfter! - fee, l.frozenAfter!];
  return {
    slot,
    base: buyerGets.currencyId,
    quote: buyerPays.currencyId,
    buyer: { pay: after(buyerPays), receive: after(buyerGets, buyerFee) },
    seller: { pay: after(sellerPays), receive: after(sellerGets, sellerFee) },
  };
}

/** What a projection transaction writes for these batches, in the sequencer's order (pure). */
export function projectionRows(batches: AppliedBatch[]): {
  orders: Map<number, OrderState>;
  /** The orders these batches made (inserted; the others are updated). */
  created: Set<number>;
  /** The parameters of the market each made order was placed on, when it was placed (AppliedBatch.markets), where the batch carries them. */
  placedIn: Map<number, MarketParams>;
  trades: ProjectedTrade[];
  /** The ledger's lines but the trades' own legs and the orders' freezes and releases (those are in their rows). */
  entries: ProjectedEntry[];
  /** The orders' freezes and releases in these batches, by order id. */
  freezes: Map<number, OrderPosting>;
  releases: Map<number, OrderPosting>;
  /** Places in the ledger's order: one per entry, per trade and per order freeze or release (each takes a ledger id). */
  slots: number;
  /** The sequencer's accounts these batches changed, each with its last leg (its balances after the last of them). */
  owned: Map<string, AppliedLeg>;
  commands: Array<{ id: string; seq: number; ts: number }>;
} {
  const orders = new Map<number, OrderState>();
  const created = new Set<number>();
  const placedIn = new Map<number, MarketParams>();
  const trades: ProjectedTrade[] = [];
  const entries: ProjectedEntry[] = [];
  const freezes = new Map<number, OrderPosting>();
  const releases = new Map<number, OrderPosting>();
  const owned = new Map<string, AppliedLeg>();
  let slots = 0;
  // The applied posting commands (a retry past the sequencer's window is answered from their rows).
  const commands: Array<{ id: string; seq: number; ts: number }> = [];
  // The house's side of spot fees: one entry per fee account for a run of trades, not one per
  // trade. A run ends where another posting touches that account (a referral rebate paid from
  // it): the merged entry is written there, so the entries stay in the sequencer's order, each
  // balance after follows from the one before, and the account's balance is its last leg's.
  // A run is added to in place; its entry is made once, when it ends.
  const fees = new Map<string, { last: AppliedLeg; sum: bigint; from: number; seq: number; ts: number }>();
  const flush = (key: string) => {
    const f = fees.get(key);
    if (!f) return;
    fees.delete(key);
    entries.push({
      slot: slots++,
      seq: f.seq,
      ts: f.ts,
      refType: 'spot-fees',
      refId: f.from === f.seq ? String(f.seq) : `${f.from}-${f.seq}`,
      memo: 'spot trading fees',
      leg: { ...f.last, available: f.sum },
    });
  };
  for (const b of batches) {
    for (let k = 0; k < b.outcomes.length; k++) {
      const o = b.outcomes[k];
      const market = b.markets?.[k];
      for (const ord of o.orders) orders.set(ord.id, ord);
      if (o.created) {
        created.add(o.orderId!);
        if (market) placedIn.set(o.orderId!, market);
      }
      // A trade's posting is stored with the trade (its row carries what its legs do not repeat);
      // the outcome lists its trades in the order of their postings.
      let posted: Array<[string, TradeLedger]> | undefined;
      for (const p of o.postings) {
        if (p.commandId !== undefined) commands.push({ id: p.commandId, seq: b.seq, ts: b.ts });
        if (p.refType === 'trade') {
          (posted ??= []).push([p.refId, tradeLedger(p, slots++)]);
          // Its legs are all the sequencer's accounts: the users' trade accounts and the house's fee accounts.
          for (const leg of p.legs) {
            const key = accountKey(leg);
            if (leg.availableAfter !== undefined) owned.set(key, leg);
            if (leg.accountType !== 'spot-fee') continue;
            const f = fees.get(key);
            if (f) {
              f.last = leg;
              f.sum += leg.available;
              f.seq = b.seq;
              f.ts = b.ts;
            } else fees.set(key, { last: leg, sum: leg.available, from: b.seq, seq: b.seq, ts: b.ts });
          }
          continue;
        }
        // A spot order's freeze or release is stored with the order, in its row.
        const ofOrder = orderPosting(p);
        if (ofOrder) (ofOrder[1] === 'freeze' ? freezes : releases).set(ofOrder[0], { slot: slots++, seq: b.seq, leg: p.legs[0] });
        for (const leg of p.legs) {
          const ours = leg.availableAfter !== undefined;
          const key = ours || leg.accountType === 'spot-fee' ? accountKey(leg) : undefined;
          if (ours) owned.set(key!, leg);
          if (ofOrder) continue;
          if (leg.accountType === 'spot-fee') flush(key!);
          entries.push({ slot: slots++, seq: b.seq, ts: b.ts, refType: p.refType, refId: p.refId, memo: p.memo, leg });
        }
      }
      o.trades.forEach((t, i) => {
        const [refId, ledger] = posted?.[i] ?? [];
        if (!ledger || refId !== `${t.marketId}:${t.tradeId}`) throw new Error(`projector: trade ${t.marketId}:${t.tradeId} has no posting`);
        trades.push({ record: t, seq: b.seq, ledger, market });
      });
    }
  }
  for (const key of [...fees.keys()]) flush(key);
  return { orders, created, placedIn, trades, entries, freezes, releases, slots, owned, commands };
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
  private readonly open: string;

  /**
   * `stuckAfterMs` (the engine lease; set on the projector thread, whose connections are named
   * PROJECTOR_APPLICATION): the watermark row is waited for in short steps, and a projector
   * session holding a transaction open longer than this is ended (END_STUCK).
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly markets: MarketLookup,
    private readonly stuckAfterMs?: number,
  ) {
    this.open = open(stuckAfterMs === undefined ? undefined : WATERMARK_WAIT_MS);
  }

  async watermark(m: EntityManager = this.dataSource.manager): Promise<number> {
    const [r] = await m.query('SELECT seq FROM sequencer_projection WHERE id = 1');
    return r ? Number(r.seq) : 0;
  }

  /** Projects `batches` (consecutive, after the watermark) in one transaction. */
  async project(batches: AppliedBatch[]): Promise<Projected> {
    const last = batches[batches.length - 1].seq;
    const first = batches[0].seq;
    const { orders, created, placedIn, trades, entries, freezes, releases, slots, owned, commands } = projectionRows(batches);
    // The watermarks go into the commit's text (`first` and `last` are integers of ours, not input).
    for (const s of [first, last]) if (!Number.isSafeInteger(s)) throw new Error(`projector: batch seq ${s} is not an integer`);
    const runner = this.dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    const m = runner.manager;
    try {
      // One round trip opens the transaction, marks it as the projector's and takes the watermark.
      // The journal is the durable record: a projection lost in a crash (with its watermark, atomically) is projected again on
      // restart, so its commit need not wait for the disk (and the journal's commits wait less behind it).
      // Exactly once even with two projectors (an engine that was paused past its lease and a new holder): the
      // watermark row is locked and must be just before this run, else someone else projected it.
      // Ledger ids for the entries' and the trades' places in the ledger's order, taken in the same
      // round trip; with a database account to change, after its row lock (below), so that its
      // entries' ids follow the order in which its writers held it.
      const outside = entries.some((e) => e.leg.availableAfter === undefined);
      const opened = (await client.query(slots && !outside ? `${this.open}; ${reserveIds(slots)}` : this.open)) as unknown as QueryResult[];
      const [watermark, reserved] = opened.filter((r) => r.command === 'SELECT');
      // No row reads as nothing projected, as in `watermark` (migration ProjectionWatermarkRow seeds the row, so the first projection locks it too).
      const [w] = watermark.rows as Array<{ seq: string }>;
      const at = w ? Number(w.seq) : 0;
      if (at !== first - 1) throw new ProjectionConflict(first, at);
      const after = await this.databaseAccounts(m, entries);
      const taken = !slots ? undefined : (reserved ?? (await client.query<{ ids: string }>(reserveIds(slots))));
      const ids = taken ? ledgerIds((taken.rows[0] as { ids: string }).ids, slots) : [];
      // The new rows by COPY (one round trip), then the changed ones in one statement (each part writes a table of its own).
      const ledger = ledgerText(entries, after, ids);
      const [made, changed] = this.orderRows(orders, created, freezes, releases, ids, placedIn);
      const [trade, candles] = this.tradeRows(trades, ids);
      await copyIn(
        client,
        [
          { statement: LEDGER, rows: ledger },
          { statement: NEW_ORDERS, rows: made },
          { statement: TRADES, rows: trade },
        ].filter((p) => p.rows),
      );
      // Planned for its own arrays every time (an unnamed statement), not prepared: a generic plan made while
      // the orders table was small joined it by a sequential scan, and kept doing so as it grew.
      const [{ orders: updated }] = (await client.query<{ orders: number }>(ROWS, [...ownedColumns(owned), ...changed])).rows;
      if (updated !== orders.size - created.size)
        throw new Error(`projector: ${orders.size - created.size - updated} of the orders batches ${first}–${last} changed are missing`);
      if (commands.length)
        await preparedQuery(
          m,
          'kestrel-projector-commands',
          COMMANDS,
          literals([commands.map((c) => c.id), commands.map((c) => c.seq), commands.map((c) => c.ts)]),
        );
      for (const [marketId, ticks] of candles) await writeCandles(m, marketId, ticks);
      // The watermark (and the highest ledger id given, when some were: the ids ascend), moved only from the one
      // this run follows.
      const top = ids.length ? ids[ids.length - 1] : 'NULL';
      const move = `INSERT INTO sequencer_projection (id, seq, ledger_id) VALUES (1, ${last}, ${top})
         ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq, ledger_id = COALESCE(EXCLUDED.ledger_id, sequencer_projection.ledger_id)
         WHERE sequencer_projection.seq = ${first - 1}`;
      // Its row locked since the open, it is this run's to move: the write and the commit in one round trip.
      if (w) await client.query(`${move}; COMMIT`);
      else {
        // No row was there to lock: another projector may have written the same batches meanwhile (its insert
        // waits for this one's, or this one's for its). Whichever inserted second changes nothing, and rolls back.
        const moved = await client.query(move);
        if (moved.rowCount !== 1) throw new ProjectionConflict(first, await this.watermark(m));
        await client.query('COMMIT');
      }
    } catch (err) {
      // A connection that broke is dropped from the pool by its error event (TypeORM's runner).
      await client.query('ROLLBACK').catch(() => undefined);
      if ((err as { code?: string }).code === '55P03' && this.stuckAfterMs !== undefined) {
        const [{ ended }] = (await client.query<{ ended: number }>(END_STUCK, [this.stuckAfterMs])).rows;
        throw new ProjectionBlocked(ended);
      }
      throw err;
    } finally {
      await runner.release();
    }
    return { seq: last };
  }

  /** A market's unit converter: of the parameters its outcome was applied with (the journal's), else the lookup's. */
  private units(marketId: number, params: MarketParams | undefined): EngineMarket {
    const e = params ? unitsOf(params) : this.markets.byIdOrUndefined(marketId)?.engine;
    if (!e) throw new Error(`projector: unknown market ${marketId}`);
    return e;
  }

  /**
   * The database accounts (external, transit, option…) that these entries change: each change is
   * added under the row lock (statements of their own, before ROWS: deposits, withdrawals and
   * transfers, not trades), and their new totals come back, for the entries' balances after. The
   * sequencer's accounts carry theirs on each leg.
   */
  private async databaseAccounts(m: EntityManager, entries: ProjectedEntry[]): Promise<Map<string, { available: bigint; frozen: bigint }>> {
    const outside = new Map<string, AccountTotal>();
    for (const { leg } of entries) {
      if (leg.availableAfter !== undefined) continue;
      const k = accountKey(leg);
      const cur = outside.get(k) ?? { key: leg, available: 0n, frozen: 0n };
      cur.available += leg.available;
      cur.frozen += leg.frozen;
      outside.set(k, cur);
    }
    const after = new Map<string, { available: bigint; frozen: bigint }>();
    if (outside.size) {
      const rows = [...outside.values()].sort((a, b) => (accountKey(a.key) < accountKey(b.key) ? -1 : 1));
      // Adds each change under the row lock, in one global order; rows are created first (with
      // zero: a CHECK is tested on an insert's candidate row, even one that becomes an update).
      // The balance's own CHECK refuses a negative non-external account (the sequencer only debits external and transit).
      const [ot, oi, at, ci, da, df] = accountColumns(rows);
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
    return after;
  }

  /**
   * The orders as they are after these batches: the ones they made as COPY's text for NEW_ORDERS
   * (empty when none), the others' changing columns for ROWS; each with its freeze and release
   * made by these batches (their reserved ids, batches and the account after them).
   */
  private orderRows(
    orders: Map<number, OrderState>,
    created: Set<number>,
    freezes: Map<number, OrderPosting>,
    releases: Map<number, OrderPosting>,
    ids: number[],
    placedIn?: Map<number, MarketParams>,
  ): [string, string[]] {
    let made = '';
    const at = new CopyTime();
    const c: unknown[][] = Array.from({ length: 12 }, () => []);
    for (const o of orders.values()) {
      const release = releases.get(o.id);
      if (!created.has(o.id)) {
        // What it froze, for an order projected before its row kept it: the release and what the fills paid from frozen.
        const frozen = release && release.leg.available + (o.side === 'buy' ? o.filledQuote : o.filledQty);
        [o.id, o.filledQty, o.filledQuote, o.fee, o.frozenLeft, o.status, o.updatedTs, ...postingColumns(release, ids), frozen ?? null].forEach((v, j) => c[j].push(v));
        continue;
      }
      const freeze = freezes.get(o.id);
      if (!freeze) throw new Error(`projector: order ${o.id} was made without its freeze`);
      const e = this.units(o.marketId, placedIn?.get(o.id));
      const price = o.price ? e.ticksToPrice(o.price) : null;
      const qty = o.qty ? e.lotsToQty(o.qty) : null;
      const quote = o.quoteBudget ? e.unitsToQuote(o.quoteBudget) : null;
      made += `${o.id}\t${o.userId}\t${o.marketId}\t${o.side}\t${o.type}\t${copyField(price)}\t${copyField(qty)}\t${copyField(quote)}\t${unitsString(o.filledQty)}\t${unitsString(o.filledQuote)}\t${unitsString(o.fee)}\t${o.frozenCurrency}\t${unitsString(o.frozenLeft)}\t${o.status}\t${copyField(o.clientOrderId)}\t${at.of(o.createdTs)}\t${at.of(o.updatedTs)}\t${unitsString(freeze.leg.frozen)}\t${postingFields(freeze, ids)}\t${postingFields(release, ids)}\n`;
    }
    return [made, literals(c)];
  }

  /**
   * The trades as COPY's text for TRADES (empty when none), each with its ledger posting (its
   * reserved id and each side's balances after it, the maker's and the taker's), and each market's
   * trades for its K-lines.
   */
  private tradeRows(trades: ProjectedTrade[], ids: number[]): [string, Map<number, TradeTick[]>] {
    const byMarket = new Map<number, TradeTick[]>();
    let text = '';
    const at = new CopyTime();
    for (const { record: t, seq, ledger, market } of trades) {
      const tick = tradeTick(this.units(t.marketId, market), t);
      const list = byMarket.get(t.marketId) ?? [];
      list.push(tick);
      byMarket.set(t.marketId, list);
      const [maker, taker] = t.takerSide === 'buy' ? [ledger.seller, ledger.buyer] : [ledger.buyer, ledger.seller];
      text += `${t.marketId}\t${t.tradeId}\t${tick.price}\t${tick.quantity}\t${tick.quoteQuantity}\t${t.takerSide}\t${t.makerOrderId}\t${t.takerOrderId}\t${t.makerUserId}\t${t.takerUserId}\t${unitsString(t.makerFee)}\t${unitsString(t.takerFee)}\t${at.of(t.ts)}\t${ids[ledger.slot]}\t${seq}\t${ledger.base}\t${ledger.quote}\t${afterFields(maker)}\t${afterFields(taker)}\n`;
    }
    return [text, byMarket];
  }
}

/**
 * The entries as COPY's text for LEDGER (empty when there are none), each with its reserved id. A
 * database account's balance after each entry is walked back from its new total (`after`).
 */
function ledgerText(entries: ProjectedEntry[], after: Map<string, { available: bigint; frozen: bigint }>, ids: number[]): string {
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
  // One line per entry.
  let text = '';
  const at = new CopyTime();
  entries.forEach((e, i) => {
    const l = e.leg;
    text += `${ids[e.slot]}\t${e.seq}\t${copyField(l.ownerType)}\t${l.ownerId}\t${copyField(l.accountType)}\t${l.currencyId}\t${l.code}\t${unitsString(l.available)}\t${unitsString(l.frozen)}\t${unitsString(runs[i][0])}\t${unitsString(runs[i][1])}\t${copyField(e.refType)}\t${copyField(e.refId)}\t${copyField(e.memo.slice(0, 200))}\t${at.of(e.ts)}\n`;
  });
  return text;
}

/** The sequencer's accounts as accountColumns gives them, each with its balances after its last leg. */
function ownedColumns(owned: Map<string, AppliedLeg>): string[] {
  return accountColumns([...owned.values()].map((leg) => ({ key: leg, available: leg.availableAfter!, frozen: leg.frozenAfter! })));
}

/** Accounts and their balances as the array columns of a bulk statement: owner type, owner id, account type, currency, available, frozen. */
function accountColumns(rows: Array<AccountTotal>): string[] {
  return [
    rows.map((r) => r.key.ownerType),
    rows.map((r) => r.key.ownerId),
    rows.map((r) => r.key.accountType),
    rows.map((r) => r.key.currencyId),
    rows.map((r) => r.available),
    rows.map((r) => r.frozen),
  ].map(arrayLiteral);
}

/** An order's freeze or release as the values of its row's four columns: ledger id, batch, available after, frozen after (all null without one). */
function postingColumns(p: OrderPosting | undefined, ids: number[]): [number | null, number | null, bigint | null, bigint | null] {
  return p ? [ids[p.slot], p.seq, p.leg.availableAfter!, p.leg.frozenAfter!] : [null, null, null, null];
}

/** The same as COPY fields. */
function postingFields(p: OrderPosting | undefined, ids: number[]): string {
  return p ? `${ids[p.slot]}\t${p.seq}\t${unitsString(p.leg.availableAfter!)}\t${unitsString(p.leg.frozenAfter!)}` : '\\N\t\\N\t\\N\t\\N';
}

/** One side's balances after a trade as COPY fields: paid available, paid frozen, received available, received frozen. */
const afterFields = (side: { pay: After; receive: After }): string =>
  `${unitsString(side.pay[0])}\t${unitsString(side.pay[1])}\t${unitsString(side.receive[0])}\t${unitsString(side.receive[1])}`;

/** The reserved ids (`reserveIds`), ascending; exactly `n` of them, or the projection is refused. */
function ledgerIds(text: string, n: number): number[] {
  const ids = text.split(',').map(Number);
  if (ids.length !== n || !ids.every(Number.isSafeInteger)) throw new Error(`projector: ${n} ledger ids reserved, ${ids.length} came back`);
  return ids.sort((a, b) => a - b);
}

/** A trade as market data shows it (decimal strings), its price read in the units `e` converts (those it was made in). */
export function tradeTick(e: EngineMarket, t: TradeRecord): TradeTick {
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

/** The watermark row is held by another projection (a stuck one was ended: `ended`); try again. */
export class ProjectionBlocked extends Error {
  constructor(readonly ended: number) {
    super(`projection waited for the watermark row${ended ? `; ended ${ended} stuck projector session(s)` : ''}`);
  }
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
