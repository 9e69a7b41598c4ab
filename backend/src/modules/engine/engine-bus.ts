import { EventEmitter } from 'node:events';
import { Injectable } from '@nestjs/common';
import type { OptionResultData } from '@kestrel/contracts';
import type { TradeRecord } from './sequencer/commands';

/** An order's state once projected, in units: the feed formats it only for a user someone listens for. */
export interface OrderUpdate {
  readonly userId: number;
  readonly id: number;
  readonly marketId: number;
  readonly status: 'waiting' | 'completed' | 'cancelled';
  readonly filledQty: bigint;
  readonly filledQuote: bigint;
  readonly fee: bigint;
}

export interface TradeTick {
  marketId: number;
  tradeId: number;
  price: string;
  quantity: string;
  quoteQuantity: string;
  takerSide: 'buy' | 'sell';
  ts: number;
}

export interface BusEvents {
  /**
   * A journaled batch's trades of one market, in trade id order (in units: formatted only where a
   * message is built), and the batch (the read tables have them once `projected` reaches it).
   */
  trades: [TradeRecord[], number];
  /** The projector wrote the read tables up to this journal batch (trades, candles, orders, balances). */
  projected: [number];
  /**
   * The sequencer was rebuilt from the journal here and its projection has caught up (a start, a
   * take-over, a rebuild after a failure): batches journaled before it may have been projected
   * without their market messages (their trades were never given as `trades` here).
   */
  rebuilt: [];
  /** The outbox has commands for the sequencer (the relay beside it sends them now). */
  outbox: [];
  /** The book of a market changed (depth readers re-read it, conflated). */
  book: [number];
  /**
   * Orders whose state or fill changed, in the order of the changes: everything one step of the
   * projector made visible (pushed to their owners, one message per owner).
   */
  orders: [OrderUpdate[]];
  /** A user's balances changed (pushed to the owner). */
  balance: [number];
  /** An option was delivered (pushed to its owner). */
  option: [{ userId: number; data: OptionResultData }];
  /** A user's contract positions changed (opened, filled, closed, TP/SL edited): pushed to the owner, conflated. */
  position: [number];
  /** New mark-price ticks were recorded for these markets (open positions' P/L and risk re-read, conflated). */
  mark: [number[]];
}

/** In-process fan-out from the engine host to market data and the realtime gateway. */
@Injectable()
export class EngineBus extends EventEmitter<BusEvents> {
  constructor() {
    super();
    this.setMaxListeners(50);
  }
}
