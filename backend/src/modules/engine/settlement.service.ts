import { Injectable } from '@nestjs/common';
import type { EngineEvent, TradeEvent } from '@kestrel/matching-engine';
import { EntityManager } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { isCheckViolation, preparedQuery, updateReturning } from '../../infra/database/sql';
import { moneyString, units, unitsString, unitsTimes } from '../../infra/money';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService, Movement, Posting } from '../ledger/ledger.service';
import { writeCandles } from '../market/candle-writer';
import { OrderUpdate, TradeTick } from './engine-bus';
import { MarketInfo } from './market-registry.service';

/** Fees are truncated to this many decimals (DESIGN §1.3); the exchange bears the remainder. */
export const FEE_DECIMALS = 8;

export interface SettlementOutcome {
  trades: TradeTick[];
  orders: OrderUpdate[];
  users: Set<number>;
}

export interface FreezeRequest {
  orderId: number;
  userId: number;
  currencyId: number;
  amount: string;
}

interface OrderRow {
  id: string;
  user_id: number;
  status: 'waiting' | 'completed' | 'cancelled';
  filled_qty: string;
  filled_quote: string;
  fee: string;
}

/** Sums in fixed-point units (see `units`). */
interface Fill {
  qty: bigint;
  quote: bigint;
  fee: bigint;
  frozenUsed: bigint;
}

/** A trade's amounts and fees as decimal strings and in units (computed once per trade). */
interface TradeFees {
  qty: string;
  quote: string;
  buyerFee: string;
  sellerFee: string;
  makerFee: string;
  takerFee: string;
  units: { qty: bigint; quote: bigint; buyerFee: bigint; sellerFee: bigint };
}

/** A new order's freeze (code 901): it opens the order's stream, whose id was just drawn. */
const freezePosting = (r: FreezeRequest): Posting => ({
  commandId: `freeze:${r.orderId}`,
  refType: 'order',
  refId: String(r.orderId),
  streamVersion: 1,
  actor: `user:${r.userId}`,
  movements: [
    {
      ownerType: 'user',
      ownerId: r.userId,
      accountType: 'coin',
      currencyId: r.currencyId,
      code: LedgerCode.Freeze,
      available: `-${r.amount}`,
      frozen: r.amount,
    },
  ],
});

/** True for the refusal of a batch that must fit whole (`freezeAll`): the funds of one of its orders fall short. */
export function isFundsShort(err: unknown): boolean {
  // Our running-balance check, or the balance row's own CHECK (available, frozen ≥ 0).
  return (err instanceof BusinessError && err.code === ErrorCode.INSUFFICIENT_BALANCE) || isCheckViolation(err);
}

/** The status an order that leaves the book gets from this event, if it leaves the book. */
export function closing(e: EngineEvent): [number, 'completed' | 'cancelled'] | undefined {
  if (e.type === 'trade' && e.makerRemaining === 0) return [e.makerId, 'completed']; // a maker gets no done event of its own
  if (e.type === 'cancelled') return [e.id, 'cancelled'];
  if (e.type === 'rejected' && e.command === 'place') return [e.id, 'cancelled'];
  if (e.type === 'done' && e.status === 'filled') return [e.id, 'completed'];
  return undefined;
}

/**
 * Turns engine events into money and projections, a whole batch in a fixed number of statements.
 * Idempotent: a trade is settled only if its row is inserted now (the key is the engine's trade
 * id), an order is finalised only while waiting, and every posting's command id derives from
 * those keys — so replaying the journal after a crash settles nothing twice.
 */
@Injectable()
export class SettlementService {
  /** A trade's amounts are worked out once: for the taker's answer after matching, then for settlement. */
  private readonly feeCache = new WeakMap<TradeEvent, TradeFees>();

  constructor(private readonly ledger: LedgerService) {}

  /**
   * What settlement will write for these new orders (id → owner) once it applies `events`, worked
   * out in memory with the same rules: the answer to a place, given as soon as it is matched.
   */
  orderStates(market: MarketInfo, events: readonly EngineEvent[], owners: ReadonlyMap<number, number>): Map<string, OrderUpdate> {
    const acc = new Map<number, { status: OrderUpdate['status']; qty: bigint; quote: bigint; fee: bigint }>();
    for (const id of owners.keys()) acc.set(id, { status: 'waiting', qty: 0n, quote: 0n, fee: 0n });
    const add = (id: number, qty: bigint, quote: bigint, fee: bigint) => {
      const a = acc.get(id);
      if (a) Object.assign(a, { qty: a.qty + qty, quote: a.quote + quote, fee: a.fee + fee });
    };
    for (const e of events) {
      if (e.type === 'trade' && (acc.has(e.takerId) || acc.has(e.makerId))) {
        const { qty, quote, buyerFee, sellerFee } = this.fees(market, e).units;
        add(e.takerSide === 'buy' ? e.takerId : e.makerId, qty, quote, buyerFee);
        add(e.takerSide === 'buy' ? e.makerId : e.takerId, qty, quote, sellerFee);
      }
      const c = closing(e);
      if (c && acc.has(c[0])) acc.get(c[0])!.status = c[1];
    }
    const out = new Map<string, OrderUpdate>();
    for (const [id, a] of acc) {
      out.set(String(id), {
        userId: owners.get(id)!,
        orderId: String(id),
        marketId: market.id,
        status: a.status,
        filledQty: unitsString(a.qty),
        filledQuote: unitsString(a.quote),
        fee: unitsString(a.fee),
      });
    }
    return out;
  }

  /** Freezes the funds of new orders (code 901). Returns, per request, whether it fitted. */
  async freeze(m: EntityManager, requests: FreezeRequest[]): Promise<boolean[]> {
    // Fresh: the order ids were just drawn.
    const results = await this.ledger.postBatch(requests.map(freezePosting), m, { fresh: true });
    return results.map((r) => r.ok);
  }

  /**
   * Freezes the funds of all these new orders, or throws (`isFundsShort`) if any does not fit:
   * one statement, so the owners' balance rows are locked only from it to the commit.
   */
  async freezeAll(m: EntityManager, requests: FreezeRequest[]): Promise<void> {
    await this.ledger.postAllOrFail(requests.map(freezePosting), m);
  }

  async settle(m: EntityManager, market: MarketInfo, events: readonly EngineEvent[]): Promise<SettlementOutcome> {
    const out: SettlementOutcome = { trades: [], orders: [], users: new Set() };
    const touched = new Map<string, OrderRow>();

    // 1. Trades: insert their rows; only the newly inserted ones move money.
    const trades = events.filter((e): e is TradeEvent => e.type === 'trade');
    const fees = new Map(trades.map((t) => [t.tradeId, this.fees(market, t)]));
    const settled = trades.length ? new Set(await this.insertTrades(m, market, trades, fees)) : new Set<number>();
    const postings: Posting[] = [];
    const fills = new Map<number, Fill>();
    for (const t of trades) {
      if (!settled.has(t.tradeId)) continue;
      postings.push(this.tradePosting(market, t, fees.get(t.tradeId)!, fills, out));
    }
    if (fills.size) {
      const ids = [...fills.keys()];
      const f = ids.map((id) => fills.get(id)!);
      // Planned on every call (not prepared): a generic plan for these order updates was measured
      // ~10× slower per call than the planner's custom one (docs/performance.md).
      const rows = await updateReturning<OrderRow>(
        m,
        `UPDATE orders o SET filled_qty = o.filled_qty + v.q, filled_quote = o.filled_quote + v.quote, fee = o.fee + v.fee, frozen_left = o.frozen_left - v.used, updated_at = now()
         FROM unnest($1::bigint[], $2::numeric[], $3::numeric[], $4::numeric[], $5::numeric[]) v(id, q, quote, fee, used) WHERE o.id = v.id
         RETURNING o.id::text, o.user_id, o.status, o.filled_qty::text, o.filled_quote::text, o.fee::text`,
        [ids, f.map((x) => unitsString(x.qty)), f.map((x) => unitsString(x.quote)), f.map((x) => unitsString(x.fee)), f.map((x) => unitsString(x.frozenUsed))],
      );
      for (const r of rows) touched.set(r.id, r);
    }

    // 2. Orders that left the book: close them and release what is still frozen (code 902).
    const finals = new Map<number, 'completed' | 'cancelled'>();
    for (const e of events) {
      const c = closing(e);
      if (c) finals.set(c[0], c[1]);
    }
    if (finals.size) {
      const rows = await updateReturning<OrderRow & { frozen_currency_id: number; released: string }>(
        m,
        `UPDATE orders o SET status = f.status, frozen_left = 0, updated_at = now()
         FROM (SELECT b.id, b.frozen_left AS released, v.status FROM orders b JOIN unnest($1::bigint[], $2::varchar[]) v(id, status) ON v.id = b.id
               WHERE b.status = 'waiting' ORDER BY b.id FOR UPDATE OF b) f
         WHERE o.id = f.id
         RETURNING o.id::text, o.user_id, o.status, o.filled_qty::text, o.filled_quote::text, o.fee::text, o.frozen_currency_id, f.released::text`,
        [[...finals.keys()], [...finals.values()]],
      );
      for (const r of rows) {
        touched.set(r.id, r);
        out.users.add(r.user_id);
        const released = units(r.released);
        if (released === 0n) continue;
        const amount = unitsString(released);
        postings.push({
          commandId: `release:${r.id}`,
          refType: 'order',
          refId: r.id,
          streamVersion: 2, // an order's stream: its freeze, then this release
          actor: 'engine',
          movements: [
            {
              ownerType: 'user',
              ownerId: r.user_id,
              accountType: 'coin',
              currencyId: r.frozen_currency_id,
              code: LedgerCode.Unfreeze,
              available: amount,
              frozen: `-${amount}`,
            },
          ],
        });
      }
    }
    // 3. A new order that only rests changed no row here, but its owner must still hear of it:
    // untouched by this batch, it is waiting with nothing filled (read nothing to know that).
    for (const e of events) {
      if (e.type === 'accepted' && !touched.has(String(e.id)))
        touched.set(String(e.id), { id: String(e.id), user_id: e.owner, status: 'waiting', filled_qty: '0', filled_quote: '0', fee: '0' });
    }

    await writeCandles(m, market.id, out.trades);
    // One ledger batch (trades first, then releases), last: the accounts are locked once, in one
    // order, so a settlement and the next batch's freeze cannot deadlock, and held only until the commit.
    await this.postAll(m, postings);
    for (const o of touched.values()) {
      out.orders.push({
        userId: o.user_id,
        orderId: o.id,
        marketId: market.id,
        status: o.status,
        filledQty: moneyString(o.filled_qty),
        filledQuote: moneyString(o.filled_quote),
        fee: moneyString(o.fee),
      });
    }
    return out;
  }

  private async insertTrades(m: EntityManager, market: MarketInfo, trades: TradeEvent[], fees: Map<number, TradeFees>): Promise<number[]> {
    const e = market.engine;
    const cols: unknown[][] = Array.from({ length: 12 }, () => []);
    for (const t of trades) {
      const { qty, quote, makerFee, takerFee } = fees.get(t.tradeId)!;
      [t.tradeId, e.ticksToPrice(t.price), qty, quote, t.takerSide, t.makerId, t.takerId, t.makerOwner, t.takerOwner, makerFee, takerFee, t.ts].forEach(
        (v, i) => cols[i].push(v),
      );
    }
    const rows = await preparedQuery<{ trade_id: string }>(
      m,
      'settle_trades',
      `INSERT INTO trades (market_id, trade_id, price, quantity, quote_quantity, taker_side, maker_order_id, taker_order_id, maker_user_id, taker_user_id, maker_fee, taker_fee, executed_at)
       SELECT $1, v.trade_id, v.price, v.qty, v.quote, v.side, v.maker, v.taker, v.maker_user, v.taker_user, v.maker_fee, v.taker_fee, to_timestamp(v.ts / 1000.0)
       FROM unnest($2::bigint[], $3::numeric[], $4::numeric[], $5::numeric[], $6::varchar[], $7::bigint[], $8::bigint[], $9::int[], $10::int[], $11::numeric[], $12::numeric[], $13::bigint[])
         v(trade_id, price, qty, quote, side, maker, taker, maker_user, taker_user, maker_fee, taker_fee, ts)
       ON CONFLICT (market_id, trade_id) DO NOTHING RETURNING trade_id::text`,
      [market.id, ...cols],
    );
    return rows.map((r) => Number(r.trade_id));
  }

  /** Buyer pays the fee in base (what they receive), seller in quote; truncated. */
  private fees(market: MarketInfo, t: TradeEvent): TradeFees {
    const cached = this.feeCache.get(t);
    if (cached) return cached;
    const qty = market.engine.lotsToQty(t.qty);
    const quote = market.engine.unitsToQuote(t.price * t.qty);
    const buyerRate = t.takerSide === 'buy' ? market.takerFee : market.makerFee;
    const sellerRate = t.takerSide === 'buy' ? market.makerFee : market.takerFee;
    const u = { qty: units(qty), quote: units(quote), buyerFee: 0n, sellerFee: 0n };
    u.buyerFee = unitsTimes(u.qty, units(buyerRate), FEE_DECIMALS);
    u.sellerFee = unitsTimes(u.quote, units(sellerRate), FEE_DECIMALS);
    const [buyerFee, sellerFee] = [unitsString(u.buyerFee), unitsString(u.sellerFee)];
    const fees = {
      qty,
      quote,
      buyerFee,
      sellerFee,
      makerFee: t.takerSide === 'buy' ? sellerFee : buyerFee,
      takerFee: t.takerSide === 'buy' ? buyerFee : sellerFee,
      units: u,
    };
    this.feeCache.set(t, fees);
    return fees;
  }

  /** Codes 600 (deduction from frozen), 602 (increase) and 601 (fee, to the system's fee account). */
  private tradePosting(market: MarketInfo, t: TradeEvent, f: TradeFees, fills: Map<number, Fill>, out: SettlementOutcome): Posting {
    const { qty, quote, buyerFee, sellerFee } = f;
    const buyer = t.takerSide === 'buy' ? { user: t.takerOwner, order: t.takerId } : { user: t.makerOwner, order: t.makerId };
    const seller = t.takerSide === 'buy' ? { user: t.makerOwner, order: t.makerId } : { user: t.takerOwner, order: t.takerId };
    const B = market.base.id;
    const Q = market.quote.id;
    const user = (id: number, currencyId: number, code: LedgerCode, available: string, frozen = '0'): Movement => ({
      ownerType: 'user',
      ownerId: id,
      accountType: 'coin',
      currencyId,
      code,
      available,
      frozen,
    });
    const fees = (currencyId: number, amount: string): Movement => ({
      ownerType: 'system',
      ownerId: SYSTEM_OWNER_ID,
      accountType: 'fees',
      currencyId,
      code: LedgerCode.CoinTradeFee,
      available: amount,
    });
    const movements: Movement[] = [
      user(buyer.user, Q, LedgerCode.CoinTradeDeduction, '0', `-${quote}`),
      user(buyer.user, B, LedgerCode.CoinTradeIncrease, qty),
      user(seller.user, B, LedgerCode.CoinTradeDeduction, '0', `-${qty}`),
      user(seller.user, Q, LedgerCode.CoinTradeIncrease, quote),
    ];
    const u = f.units;
    if (u.buyerFee !== 0n) movements.push(user(buyer.user, B, LedgerCode.CoinTradeFee, `-${buyerFee}`), fees(B, buyerFee));
    if (u.sellerFee !== 0n) movements.push(user(seller.user, Q, LedgerCode.CoinTradeFee, `-${sellerFee}`), fees(Q, sellerFee));

    const add = (order: number, fee: bigint, used: bigint) => {
      const f = fills.get(order) ?? { qty: 0n, quote: 0n, fee: 0n, frozenUsed: 0n };
      fills.set(order, { qty: f.qty + u.qty, quote: f.quote + u.quote, fee: f.fee + fee, frozenUsed: f.frozenUsed + used });
    };
    add(buyer.order, u.buyerFee, u.quote);
    add(seller.order, u.sellerFee, u.qty);
    out.trades.push({
      marketId: market.id,
      tradeId: t.tradeId,
      price: market.engine.ticksToPrice(t.price),
      quantity: qty,
      quoteQuantity: quote,
      takerSide: t.takerSide,
      ts: t.ts,
    });
    out.users.add(buyer.user).add(seller.user);
    // Settled only when its trade row is inserted now: the posting opens the trade's stream.
    return { commandId: `trade:${market.id}:${t.tradeId}`, refType: 'trade', refId: `${market.id}:${t.tradeId}`, actor: 'engine', movements, streamVersion: 1 };
  }

  /** Settlement postings move funds that were frozen for them: a refusal here is a broken invariant, never a business outcome. */
  private async postAll(m: EntityManager, postings: Posting[]): Promise<void> {
    // Fresh: a trade posts only when its row is inserted now, a release only when its order closes now.
    await this.ledger.postAllOrFail(postings, m).catch((err: unknown) => {
      throw isFundsShort(err) ? new Error('settlement postings were refused: frozen funds do not cover them') : err;
    });
  }
}
