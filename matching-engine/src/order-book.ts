import type { EventSink } from './event-sink';
import type { BookSnapshot, Command, DepthView, OrderView, ResultCode } from './types';

/**
 * What both books implement. `process` never throws for a business outcome: it writes the
 * outcome to the sink and returns 'OK' or the reject code.
 */
export interface OrderBook {
  process(cmd: Command): ResultCode;
  bestBid(): number | undefined;
  bestAsk(): number | undefined;
  /** Aggregated top `levels` price levels per side. */
  depth(levels: number): DepthView;
  order(id: number): OrderView | undefined;
  /** Number of resting orders. */
  readonly orderCount: number;
  /** Last trade id issued. */
  readonly tradeSeq: number;
  snapshot(): BookSnapshot;
  /** Replaces the whole book state; throws only on a malformed snapshot (an operator error). */
  restore(snapshot: BookSnapshot): void;
  /** Where subsequent events go. */
  sink: EventSink;
}

export type OrderBookFactory = (sink: EventSink) => OrderBook;
