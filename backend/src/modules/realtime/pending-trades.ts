import type { TradeData } from '@kestrel/contracts';
import type { Market as EngineMarket } from '@kestrel/matching-engine';
import { trimDecimal, unitsString } from '../../infra/money';
import type { TradeRecord } from '../engine/sequencer/commands';

/**
 * A market's trades waiting for the market feed's next cycle (`CONFLATE_MS`), oldest first: each
 * one's id, price (ticks), side and time as unboxed numbers, and its quantity's `bigint` (ledger
 * units), not the sequencer's records. Held that long, the records (~250 bytes with their
 * `bigint`s, ~0.75 per order) outlived one or two scavenges under load and were promoted, a fifth
 * of what the main thread promoted (docs/performance.md, seventy-eighth sitting); these ~60 bytes
 * are what a message needs.
 */
export class PendingTrades {
  /** Four numbers a trade: id, price in ticks, side (1: the taker bought), time (ms). */
  private readonly nums: number[] = [];
  private readonly qty: bigint[] = [];

  get length(): number {
    return this.qty.length;
  }

  push(t: TradeRecord): void {
    this.nums.push(t.tradeId, t.price, t.takerSide === 'buy' ? 1 : 0, t.ts);
    this.qty.push(t.qty);
  }

  /** The newest `last` trades (all by default), oldest first, as the `trades` topic sends them (prices in `engine`'s ticks). */
  data(engine: EngineMarket, last = this.length): TradeData[] {
    const n = this.nums;
    const out: TradeData[] = [];
    for (let i = Math.max(0, this.length - last); i < this.length; i++) {
      const j = i * 4;
      out.push({
        trade_id: String(n[j]),
        price: trimDecimal(engine.ticksToPrice(n[j + 1])),
        quantity: unitsString(this.qty[i]),
        side: n[j + 2] === 1 ? 'buy' : 'sell',
        time: n[j + 3],
      });
    }
    return out;
  }

  /** These trades, then `later`'s (a cycle that could not send them queues them again ahead of newer ones). */
  before(later: PendingTrades | undefined): PendingTrades {
    if (later) {
      // A loop, not a spread: while Redis is away the trades of many cycles pile up here.
      for (const x of later.nums) this.nums.push(x);
      for (const q of later.qty) this.qty.push(q);
    }
    return this;
  }
}
