import type { EventSink } from './event-sink';
import type { OrderBook } from './order-book';
import { assertValidSnapshot } from './snapshot';
import type {
  AmendCommand,
  BookSnapshot,
  CancelCommand,
  Command,
  CommandType,
  DepthLevel,
  DepthView,
  OrderView,
  PlaceCommand,
  ResultCode,
  Side,
  StpMode,
} from './types';
import { floorDiv, validateAmend, validatePlace } from './validation';

interface RefOrder {
  id: number;
  owner: number;
  side: Side;
  price: number;
  qty: number;
  filled: number;
  stp: StpMode;
  postOnly: boolean;
  /** Arrival order; re-issued when an amend loses priority. */
  seq: number;
}

interface TakeResult {
  filled: number;
  remaining: number;
  stpStopped: boolean;
}

/**
 * The naive book: each side is one array of orders kept fully sorted by (price, arrival).
 * Slow on purpose, easy to read; the fast book must produce exactly its event stream.
 */
export class ReferenceBook implements OrderBook {
  private bids: RefOrder[] = [];
  private asks: RefOrder[] = [];
  private seq = 0;
  tradeSeq = 0;

  constructor(public sink: EventSink) {}

  get orderCount(): number {
    return this.bids.length + this.asks.length;
  }

  process(cmd: Command): ResultCode {
    switch (cmd.type) {
      case 'place':
        return this.place(cmd);
      case 'cancel':
        return this.cancel(cmd);
      case 'amend':
        return this.amend(cmd);
      default: {
        const bad = cmd as { type?: unknown; id?: unknown; ts?: unknown };
        this.sink.rejected(Number(bad.ts) || 0, Number(bad.id) || 0, String(bad.type) as CommandType, 'INVALID_COMMAND');
        return 'INVALID_COMMAND';
      }
    }
  }

  private place(cmd: PlaceCommand): ResultCode {
    const invalid = validatePlace(cmd);
    if (invalid !== null) return this.reject(cmd.ts, cmd.id, 'place', invalid);
    if (this.find(cmd.id) !== undefined) return this.reject(cmd.ts, cmd.id, 'place', 'DUPLICATE_ID');
    const isLimit = cmd.kind === 'limit';
    const buy = cmd.side === 'buy';
    const limit = isLimit ? (cmd.price as number) : (cmd.worstPrice ?? (buy ? Number.MAX_SAFE_INTEGER : 0));
    if (cmd.postOnly === true && this.wouldCross(cmd.side, limit)) {
      return this.reject(cmd.ts, cmd.id, 'place', 'POST_ONLY_WOULD_CROSS');
    }
    const qty = cmd.qty ?? 0;
    const budget = cmd.quoteBudget ?? 0;
    this.sink.accepted(cmd.ts, cmd.id, cmd.owner, cmd.side, cmd.kind, isLimit ? limit : (cmd.worstPrice ?? 0), qty, budget);

    if (budget > 0) return this.placeQuoteBuy(cmd, limit, budget);

    if (cmd.tif === 'FOK' && !this.canFill(cmd.side, cmd.owner, cmd.stp, limit, qty)) {
      this.sink.cancelled(cmd.ts, cmd.id, cmd.owner, 'fok', qty);
      this.sink.done(cmd.ts, cmd.id, cmd.owner, 'cancelled', 0, 0, 0);
      return 'OK';
    }
    const r = this.take(cmd.id, cmd.owner, cmd.side, cmd.stp, limit, qty, cmd.ts);
    if (r.remaining === 0) {
      this.sink.done(cmd.ts, cmd.id, cmd.owner, 'filled', r.filled, 0, 0);
    } else if (r.stpStopped) {
      this.sink.cancelled(cmd.ts, cmd.id, cmd.owner, 'stp', r.remaining);
      this.sink.done(cmd.ts, cmd.id, cmd.owner, 'cancelled', r.filled, 0, 0);
    } else if (isLimit && cmd.tif === 'GTC') {
      this.rest({
        id: cmd.id,
        owner: cmd.owner,
        side: cmd.side,
        price: limit,
        qty: r.remaining,
        filled: r.filled,
        stp: cmd.stp,
        postOnly: cmd.postOnly === true,
        seq: 0,
      });
      this.sink.done(cmd.ts, cmd.id, cmd.owner, 'resting', r.filled, r.remaining, 0);
    } else {
      this.sink.cancelled(cmd.ts, cmd.id, cmd.owner, 'ioc', r.remaining);
      this.sink.done(cmd.ts, cmd.id, cmd.owner, 'cancelled', r.filled, 0, 0);
    }
    return 'OK';
  }

  /** Market buy by quote budget: buy whole lots at each maker's price until the budget cannot pay for one more. */
  private placeQuoteBuy(cmd: PlaceCommand, worst: number, budget: number): ResultCode {
    let left = budget;
    let filled = 0;
    let stpStopped = false;
    let budgetExhausted = false;
    while (this.asks.length > 0 && this.asks[0].price <= worst) {
      const m = this.asks[0];
      // Budget first: when not even one lot is affordable nothing else (STP included) happens.
      const affordable = floorDiv(left, m.price);
      if (affordable === 0) {
        budgetExhausted = true;
        break;
      }
      if (cmd.stp !== 'none' && m.owner === cmd.owner) {
        if (cmd.stp !== 'cancel-taker') {
          this.asks.shift();
          this.sink.cancelled(cmd.ts, m.id, m.owner, 'stp', m.qty);
        }
        if (cmd.stp !== 'cancel-maker') {
          stpStopped = true;
          break;
        }
        continue;
      }
      const q = Math.min(affordable, m.qty);
      m.qty -= q;
      m.filled += q;
      filled += q;
      left -= q * m.price;
      this.sink.trade(cmd.ts, ++this.tradeSeq, m.id, m.owner, cmd.id, cmd.owner, 'buy', m.price, q, m.qty);
      if (m.qty === 0) this.asks.shift();
    }
    if (budgetExhausted && filled > 0) {
      this.sink.done(cmd.ts, cmd.id, cmd.owner, 'filled', filled, 0, left);
    } else {
      this.sink.cancelled(cmd.ts, cmd.id, cmd.owner, stpStopped ? 'stp' : 'ioc', 0);
      this.sink.done(cmd.ts, cmd.id, cmd.owner, 'cancelled', filled, 0, left);
    }
    return 'OK';
  }

  private cancel(cmd: CancelCommand): ResultCode {
    const o = this.find(cmd.id);
    if (o === undefined) return this.reject(cmd.ts, cmd.id, 'cancel', 'UNKNOWN_ORDER');
    this.remove(o);
    this.sink.cancelled(cmd.ts, o.id, o.owner, 'user', o.qty);
    return 'OK';
  }

  private amend(cmd: AmendCommand): ResultCode {
    const invalid = validateAmend(cmd);
    if (invalid !== null) return this.reject(cmd.ts, cmd.id, 'amend', invalid);
    const o = this.find(cmd.id);
    if (o === undefined) return this.reject(cmd.ts, cmd.id, 'amend', 'UNKNOWN_ORDER');
    const oldPrice = o.price;
    const oldQty = o.qty;
    const price = cmd.price ?? oldPrice;
    const qty = cmd.qty ?? oldQty;
    if (price === oldPrice && qty <= oldQty) {
      o.qty = qty;
      this.sink.amended(cmd.ts, o.id, o.owner, oldPrice, oldQty, price, qty, true);
      this.sink.done(cmd.ts, o.id, o.owner, 'resting', o.filled, o.qty, 0);
      return 'OK';
    }
    if (o.postOnly && this.wouldCross(o.side, price)) return this.reject(cmd.ts, cmd.id, 'amend', 'POST_ONLY_WOULD_CROSS');
    // Losing priority is the same as leaving the book and arriving again as a new limit order.
    this.remove(o);
    this.sink.amended(cmd.ts, o.id, o.owner, oldPrice, oldQty, price, qty, false);
    const r = this.take(o.id, o.owner, o.side, o.stp, price, qty, cmd.ts);
    o.filled += r.filled;
    if (r.remaining === 0) {
      this.sink.done(cmd.ts, o.id, o.owner, 'filled', o.filled, 0, 0);
    } else if (r.stpStopped) {
      this.sink.cancelled(cmd.ts, o.id, o.owner, 'stp', r.remaining);
      this.sink.done(cmd.ts, o.id, o.owner, 'cancelled', o.filled, 0, 0);
    } else {
      o.price = price;
      o.qty = r.remaining;
      this.rest(o);
      this.sink.done(cmd.ts, o.id, o.owner, 'resting', o.filled, o.qty, 0);
    }
    return 'OK';
  }

  /** Match a taker of `qty` lots against the opposite side up to `limit`, in priority order. */
  private take(id: number, owner: number, side: Side, stp: StpMode, limit: number, qty: number, ts: number): TakeResult {
    const book = side === 'buy' ? this.asks : this.bids;
    let remaining = qty;
    let filled = 0;
    while (remaining > 0 && book.length > 0 && crosses(side, limit, book[0].price)) {
      const m = book[0];
      if (stp !== 'none' && m.owner === owner) {
        if (stp !== 'cancel-taker') {
          book.shift();
          this.sink.cancelled(ts, m.id, m.owner, 'stp', m.qty);
        }
        if (stp !== 'cancel-maker') return { filled, remaining, stpStopped: true };
        continue;
      }
      const q = Math.min(remaining, m.qty);
      m.qty -= q;
      m.filled += q;
      remaining -= q;
      filled += q;
      this.sink.trade(ts, ++this.tradeSeq, m.id, m.owner, id, owner, side, m.price, q, m.qty);
      if (m.qty === 0) book.shift();
    }
    return { filled, remaining, stpStopped: false };
  }

  /** FOK pre-check: run the same walk on a throwaway copy and see whether it fills whole. */
  private canFill(side: Side, owner: number, stp: StpMode, limit: number, qty: number): boolean {
    const book = (side === 'buy' ? this.asks : this.bids).map((o) => ({ ...o }));
    let remaining = qty;
    while (remaining > 0 && book.length > 0 && crosses(side, limit, book[0].price)) {
      const m = book[0];
      if (stp !== 'none' && m.owner === owner) {
        if (stp !== 'cancel-maker') return false;
        book.shift();
        continue;
      }
      const q = Math.min(remaining, m.qty);
      m.qty -= q;
      remaining -= q;
      if (m.qty === 0) book.shift();
    }
    return remaining === 0;
  }

  private wouldCross(side: Side, price: number): boolean {
    const book = side === 'buy' ? this.asks : this.bids;
    return book.length > 0 && crosses(side, price, book[0].price);
  }

  private rest(o: RefOrder): void {
    o.seq = ++this.seq;
    const book = o.side === 'buy' ? this.bids : this.asks;
    book.push(o);
    book.sort(o.side === 'buy' ? bidPriority : askPriority);
  }

  private remove(o: RefOrder): void {
    const book = o.side === 'buy' ? this.bids : this.asks;
    book.splice(book.indexOf(o), 1);
  }

  private find(id: number): RefOrder | undefined {
    return this.bids.find((o) => o.id === id) ?? this.asks.find((o) => o.id === id);
  }

  private reject(ts: number, id: number, command: CommandType, code: ResultCode & string): ResultCode {
    this.sink.rejected(ts, id, command, code as Exclude<ResultCode, 'OK'>);
    return code;
  }

  bestBid(): number | undefined {
    return this.bids[0]?.price;
  }

  bestAsk(): number | undefined {
    return this.asks[0]?.price;
  }

  depth(levels: number): DepthView {
    return { bids: aggregate(this.bids, levels), asks: aggregate(this.asks, levels) };
  }

  order(id: number): OrderView | undefined {
    const o = this.find(id);
    if (o === undefined) return undefined;
    return { id: o.id, owner: o.owner, side: o.side, price: o.price, qty: o.qty, filled: o.filled, stp: o.stp, postOnly: o.postOnly };
  }

  snapshot(): BookSnapshot {
    const plain = (o: RefOrder) => ({ id: o.id, owner: o.owner, price: o.price, qty: o.qty, filled: o.filled, stp: o.stp, postOnly: o.postOnly });
    return { version: 1, tradeSeq: this.tradeSeq, bids: this.bids.map(plain), asks: this.asks.map(plain) };
  }

  restore(snapshot: BookSnapshot): void {
    assertValidSnapshot(snapshot);
    this.bids = [];
    this.asks = [];
    this.seq = 0;
    this.tradeSeq = snapshot.tradeSeq;
    for (const [side, orders] of [
      ['buy', snapshot.bids],
      ['sell', snapshot.asks],
    ] as const) {
      for (const o of orders) this.rest({ ...o, side, seq: 0 });
    }
  }
}

function crosses(takerSide: Side, limit: number, makerPrice: number): boolean {
  return takerSide === 'buy' ? makerPrice <= limit : makerPrice >= limit;
}

function bidPriority(a: RefOrder, b: RefOrder): number {
  return b.price - a.price || a.seq - b.seq;
}

function askPriority(a: RefOrder, b: RefOrder): number {
  return a.price - b.price || a.seq - b.seq;
}

function aggregate(orders: RefOrder[], levels: number): DepthLevel[] {
  const out: { price: number; qty: number; orders: number }[] = [];
  for (const o of orders) {
    const last = out[out.length - 1];
    if (last !== undefined && last.price === o.price) {
      last.qty += o.qty;
      last.orders++;
    } else {
      if (out.length === levels) break;
      out.push({ price: o.price, qty: o.qty, orders: 1 });
    }
  }
  return out;
}
