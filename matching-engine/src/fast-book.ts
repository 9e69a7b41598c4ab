import type { EventSink } from './event-sink';
import { IdMap } from './id-map';
import type { OrderBook } from './order-book';
import { FLAG_POST_ONLY, FLAG_SELL, FLAG_STP_SHIFT, Ladder, OrderNode } from './price-level';
import type { Level } from './price-level';
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
  RejectCode,
  ResultCode,
  Side,
  SnapshotOrder,
} from './types';
import { BUY, SELL, STP_CANCEL_MAKER, STP_CANCEL_TAKER, STP_NAMES, STP_NONE, floorDiv, stpCode, validateAmend, validatePlace } from './validation';

const SIDE_NAMES: readonly Side[] = ['buy', 'sell'];
/** Freed nodes kept for reuse; bounded so a one-off spike does not pin memory forever. */
const NODE_POOL_MAX = 1 << 16;

/**
 * The production book. Per side a Ladder of price levels (see price-level.ts), each level an
 * intrusive FIFO of pooled nodes, and an IdMap from id to node for O(1) cancel/amend. The hot
 * path allocates nothing: results go to the sink as arguments, per-call outputs live in fields.
 * Sinks must not call back into the book while it is processing a command.
 */
export class FastBook implements OrderBook {
  private bids = new Ladder();
  private asks = new Ladder();
  private readonly index = new IdMap<OrderNode>();
  private freeNodes: OrderNode | null = null;
  private freeNodeCount = 0;
  tradeSeq = 0;
  /** Set by fillLevel when self-trade prevention stops the taker. */
  private stpStop = false;

  constructor(public sink: EventSink) {}

  get orderCount(): number {
    return this.index.size;
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

  place(cmd: PlaceCommand): ResultCode {
    const invalid = validatePlace(cmd);
    if (invalid !== null) return this.reject(cmd.ts, cmd.id, 'place', invalid);
    const id = cmd.id;
    const ts = cmd.ts;
    if (this.index.has(id)) return this.reject(ts, id, 'place', 'DUPLICATE_ID');
    const side = cmd.side === 'buy' ? BUY : SELL;
    const isLimit = cmd.kind === 'limit';
    const worst = cmd.worstPrice;
    const limit = isLimit ? (cmd.price as number) : worst !== undefined ? worst : side === BUY ? Number.MAX_SAFE_INTEGER : 0;
    // Buy takers hit asks (key -price), sell takers hit bids (key price): crossing is key >= limitKey.
    const limitKey = side === BUY ? -limit : limit;
    const postOnly = cmd.postOnly === true;
    if (postOnly && this.wouldCross(side, limitKey)) return this.reject(ts, id, 'place', 'POST_ONLY_WOULD_CROSS');
    const owner = cmd.owner;
    const budget = cmd.quoteBudget;
    const qty = cmd.qty === undefined ? 0 : cmd.qty;
    const sink = this.sink;
    sink.accepted(ts, id, owner, cmd.side, cmd.kind, isLimit ? limit : worst === undefined ? 0 : worst, qty, budget === undefined ? 0 : budget);
    const stp = stpCode(cmd.stp);

    if (budget !== undefined) return this.quoteBuy(id, owner, stp, limit, budget, ts);

    if (cmd.tif === 'FOK' && !this.canFill(side, owner, stp, limitKey, qty)) {
      sink.cancelled(ts, id, owner, 'fok', qty);
      sink.done(ts, id, owner, 'cancelled', 0, 0, 0);
      return 'OK';
    }
    const remaining = this.take(side, id, owner, stp, limitKey, qty, ts);
    const filled = qty - remaining;
    if (remaining === 0) {
      sink.done(ts, id, owner, 'filled', filled, 0, 0);
    } else if (this.stpStop) {
      sink.cancelled(ts, id, owner, 'stp', remaining);
      sink.done(ts, id, owner, 'cancelled', filled, 0, 0);
    } else if (isLimit && cmd.tif === 'GTC') {
      const node = this.allocNode();
      node.id = id;
      node.owner = owner;
      node.qty = remaining;
      node.filled = filled;
      node.flags = side | (stp << FLAG_STP_SHIFT) | (postOnly ? FLAG_POST_ONLY : 0);
      this.rest(node, limit);
      this.index.set(id, node);
      sink.done(ts, id, owner, 'resting', filled, remaining, 0);
    } else {
      sink.cancelled(ts, id, owner, 'ioc', remaining);
      sink.done(ts, id, owner, 'cancelled', filled, 0, 0);
    }
    return 'OK';
  }

  cancel(cmd: CancelCommand): ResultCode {
    const node = this.index.get(cmd.id);
    if (node === undefined) return this.reject(cmd.ts, cmd.id, 'cancel', 'UNKNOWN_ORDER');
    this.unlink(node);
    this.index.delete(node.id);
    this.sink.cancelled(cmd.ts, node.id, node.owner, 'user', node.qty);
    this.releaseNode(node);
    return 'OK';
  }

  amend(cmd: AmendCommand): ResultCode {
    const invalid = validateAmend(cmd);
    if (invalid !== null) return this.reject(cmd.ts, cmd.id, 'amend', invalid);
    const node = this.index.get(cmd.id);
    if (node === undefined) return this.reject(cmd.ts, cmd.id, 'amend', 'UNKNOWN_ORDER');
    const ts = cmd.ts;
    const id = node.id;
    const owner = node.owner;
    const level = node.level as Level;
    const flags = node.flags;
    const side = flags & FLAG_SELL;
    const oldPrice = side === BUY ? level.key : -level.key;
    const oldQty = node.qty;
    const price = cmd.price === undefined ? oldPrice : cmd.price;
    const qty = cmd.qty === undefined ? oldQty : cmd.qty;
    const sink = this.sink;
    if (price === oldPrice && qty <= oldQty) {
      // Reducing in place keeps the node where it is in the FIFO.
      node.qty = qty;
      level.total -= oldQty - qty;
      sink.amended(ts, id, owner, oldPrice, oldQty, price, qty, true);
      sink.done(ts, id, owner, 'resting', node.filled, qty, 0);
      return 'OK';
    }
    const limitKey = side === BUY ? -price : price;
    if ((flags & FLAG_POST_ONLY) !== 0 && this.wouldCross(side, limitKey)) return this.reject(ts, id, 'amend', 'POST_ONLY_WOULD_CROSS');
    // Losing priority = leave the book and arrive again as a GTC limit order with the same id.
    this.unlink(node);
    sink.amended(ts, id, owner, oldPrice, oldQty, price, qty, false);
    const remaining = this.take(side, id, owner, (flags >> FLAG_STP_SHIFT) & 3, limitKey, qty, ts);
    node.filled += qty - remaining;
    if (remaining === 0) {
      this.index.delete(id);
      sink.done(ts, id, owner, 'filled', node.filled, 0, 0);
      this.releaseNode(node);
    } else if (this.stpStop) {
      this.index.delete(id);
      sink.cancelled(ts, id, owner, 'stp', remaining);
      sink.done(ts, id, owner, 'cancelled', node.filled, 0, 0);
      this.releaseNode(node);
    } else {
      node.qty = remaining;
      this.rest(node, price);
      sink.done(ts, id, owner, 'resting', node.filled, remaining, 0);
    }
    return 'OK';
  }

  /** Match up to qty lots against the other side while its best key >= limitKey; returns lots left. */
  private take(side: number, takerId: number, owner: number, stp: number, limitKey: number, qty: number, ts: number): number {
    const ladder = side === BUY ? this.asks : this.bids;
    const sideName = SIDE_NAMES[side];
    // Maker price from its level key: asks (hit by buys) have key -price.
    const sign = side === BUY ? -1 : 1;
    let remaining = qty;
    this.stpStop = false;
    while (remaining > 0) {
      const level = ladder.best();
      if (level === null || level.key < limitKey) break;
      remaining -= this.fillLevel(level, sign * level.key, remaining, takerId, owner, sideName, stp, ts);
      if (level.head === null) ladder.remove(level);
      if (this.stpStop) break;
    }
    return remaining;
  }

  /** Market buy by quote budget; same walk, but the lots wanted at each level are what the budget affords there. */
  private quoteBuy(id: number, owner: number, stp: number, worst: number, budget: number, ts: number): ResultCode {
    const ladder = this.asks;
    let left = budget;
    let filled = 0;
    let exhausted = false;
    this.stpStop = false;
    for (;;) {
      const level = ladder.best();
      if (level === null) break;
      const price = -level.key;
      if (price > worst) break;
      const affordable = floorDiv(left, price);
      if (affordable === 0) {
        exhausted = true;
        break;
      }
      const got = this.fillLevel(level, price, affordable, id, owner, 'buy', stp, ts);
      filled += got;
      left -= got * price;
      if (level.head === null) ladder.remove(level);
      if (this.stpStop) break;
    }
    const sink = this.sink;
    if (exhausted && filled > 0) {
      sink.done(ts, id, owner, 'filled', filled, 0, left);
    } else {
      sink.cancelled(ts, id, owner, this.stpStop ? 'stp' : 'ioc', 0);
      sink.done(ts, id, owner, 'cancelled', filled, 0, left);
    }
    return 'OK';
  }

  /**
   * Fill up to `want` lots from one level's FIFO, applying the taker's STP mode to the
   * taker's own makers. Fully filled makers leave the index and go back to the pool.
   */
  private fillLevel(level: Level, price: number, want: number, takerId: number, owner: number, sideName: Side, stp: number, ts: number): number {
    const sink = this.sink;
    let left = want;
    let m = level.head;
    while (m !== null) {
      const next: OrderNode | null = m.next;
      if (stp !== STP_NONE && m.owner === owner) {
        if (stp !== STP_CANCEL_TAKER) {
          this.popHead(level, m, next);
          sink.cancelled(ts, m.id, m.owner, 'stp', m.qty);
          this.releaseNode(m);
        }
        if (stp !== STP_CANCEL_MAKER) {
          this.stpStop = true;
          break;
        }
        m = next;
        continue;
      }
      const mq = m.qty;
      if (mq > left) {
        const rest = mq - left;
        m.qty = rest;
        m.filled += left;
        level.total -= left;
        sink.trade(ts, ++this.tradeSeq, m.id, m.owner, takerId, owner, sideName, price, left, rest);
        left = 0;
        break;
      }
      m.filled += mq;
      left -= mq;
      this.popHead(level, m, next);
      m.qty = 0;
      sink.trade(ts, ++this.tradeSeq, m.id, m.owner, takerId, owner, sideName, price, mq, 0);
      this.releaseNode(m);
      m = next;
      if (left === 0) break;
    }
    return want - left;
  }

  /** Remove the level's head (a maker that is done) from the FIFO and the index. */
  private popHead(level: Level, m: OrderNode, next: OrderNode | null): void {
    level.head = next;
    if (next === null) level.tail = null;
    else next.prev = null;
    level.total -= m.qty;
    this.index.delete(m.id);
  }

  /** FOK pre-check: walk the levels the taker could reach, counting only makers it may trade with. */
  private canFill(side: number, owner: number, stp: number, limitKey: number, qty: number): boolean {
    const chunks = (side === BUY ? this.asks : this.bids).chunks;
    let acc = 0;
    for (let i = chunks.length - 1; i >= 0; i--) {
      const c = chunks[i];
      let bits = c.bits;
      while (bits !== 0) {
        const slot = 31 - Math.clz32(bits);
        bits &= ~(1 << slot);
        const level = c.slots[slot] as Level;
        if (level.key < limitKey) return false;
        if (stp === STP_NONE) {
          acc += level.total;
          if (acc >= qty) return true;
          continue;
        }
        for (let m = level.head; m !== null; m = m.next) {
          if (m.owner === owner) {
            if (stp !== STP_CANCEL_MAKER) return false;
            continue;
          }
          acc += m.qty;
          if (acc >= qty) return true;
        }
      }
    }
    return false;
  }

  private wouldCross(side: number, limitKey: number): boolean {
    const best = (side === BUY ? this.asks : this.bids).best();
    return best !== null && best.key >= limitKey;
  }

  /** Append a node at the tail of the level for `price` on its side, creating the level if needed. */
  private rest(node: OrderNode, price: number): void {
    const level = (node.flags & FLAG_SELL) === 0 ? this.bids.obtain(price) : this.asks.obtain(-price);
    const tail = level.tail;
    node.prev = tail;
    node.next = null;
    if (tail === null) level.head = node;
    else tail.next = node;
    level.tail = node;
    level.total += node.qty;
    node.level = level;
  }

  /** Take a resting node out of its level (dropping the level if it empties); the index is the caller's business. */
  private unlink(node: OrderNode): void {
    const level = node.level as Level;
    const prev = node.prev;
    const next = node.next;
    if (prev === null) level.head = next;
    else prev.next = next;
    if (next === null) level.tail = prev;
    else next.prev = prev;
    level.total -= node.qty;
    if (level.head === null) ((node.flags & FLAG_SELL) === 0 ? this.bids : this.asks).remove(level);
    node.prev = null;
    node.next = null;
    node.level = null;
  }

  private allocNode(): OrderNode {
    const node = this.freeNodes;
    if (node === null) return new OrderNode();
    this.freeNodes = node.next;
    this.freeNodeCount--;
    node.next = null;
    return node;
  }

  private releaseNode(node: OrderNode): void {
    if (this.freeNodeCount >= NODE_POOL_MAX) return;
    node.prev = null;
    node.level = null;
    node.next = this.freeNodes;
    this.freeNodes = node;
    this.freeNodeCount++;
  }

  private reject(ts: number, id: number, command: CommandType, code: RejectCode): ResultCode {
    this.sink.rejected(ts, id, command, code);
    return code;
  }

  bestBid(): number | undefined {
    const best = this.bids.best();
    return best === null ? undefined : best.key;
  }

  bestAsk(): number | undefined {
    const best = this.asks.best();
    return best === null ? undefined : -best.key;
  }

  depth(levels: number): DepthView {
    return { bids: topLevels(this.bids, 1, levels), asks: topLevels(this.asks, -1, levels) };
  }

  order(id: number): OrderView | undefined {
    const n = this.index.get(id);
    if (n === undefined) return undefined;
    const side = n.flags & FLAG_SELL;
    const key = (n.level as Level).key;
    return {
      id: n.id,
      owner: n.owner,
      side: SIDE_NAMES[side],
      price: side === BUY ? key : -key,
      qty: n.qty,
      filled: n.filled,
      stp: STP_NAMES[(n.flags >> FLAG_STP_SHIFT) & 3],
      postOnly: (n.flags & FLAG_POST_ONLY) !== 0,
    };
  }

  snapshot(): BookSnapshot {
    return { version: 1, tradeSeq: this.tradeSeq, bids: snapshotSide(this.bids, 1), asks: snapshotSide(this.asks, -1) };
  }

  restore(snapshot: BookSnapshot): void {
    assertValidSnapshot(snapshot);
    this.bids = new Ladder();
    this.asks = new Ladder();
    this.index.clear();
    this.tradeSeq = snapshot.tradeSeq;
    // Orders come in priority order, so appending each one rebuilds every FIFO as it was.
    for (const [side, orders] of [
      [BUY, snapshot.bids],
      [SELL, snapshot.asks],
    ] as const) {
      for (const o of orders) {
        const node = this.allocNode();
        node.id = o.id;
        node.owner = o.owner;
        node.qty = o.qty;
        node.filled = o.filled;
        node.flags = side | (stpCode(o.stp) << FLAG_STP_SHIFT) | (o.postOnly ? FLAG_POST_ONLY : 0);
        this.rest(node, o.price);
        this.index.set(o.id, node);
      }
    }
  }
}

/** sign turns a level key back into a price: +1 for bids, -1 for asks. */
function topLevels(ladder: Ladder, sign: number, levels: number): DepthLevel[] {
  const out: DepthLevel[] = [];
  ladder.walk((level) => {
    if (out.length >= levels) return false;
    let orders = 0;
    for (let n = level.head; n !== null; n = n.next) orders++;
    out.push({ price: sign * level.key, qty: level.total, orders });
    return true;
  });
  return out;
}

function snapshotSide(ladder: Ladder, sign: number): SnapshotOrder[] {
  const out: SnapshotOrder[] = [];
  ladder.walk((level) => {
    for (let n = level.head; n !== null; n = n.next) {
      out.push({
        id: n.id,
        owner: n.owner,
        price: sign * level.key,
        qty: n.qty,
        filled: n.filled,
        stp: STP_NAMES[(n.flags >> FLAG_STP_SHIFT) & 3],
        postOnly: (n.flags & FLAG_POST_ONLY) !== 0,
      });
    }
    return true;
  });
  return out;
}
