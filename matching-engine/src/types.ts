/**
 * Public vocabulary of the engine: commands in, events out, plus the read models.
 * Units everywhere: price in ticks, quantity in lots, quote amounts in "quote units"
 * (ticks x lots; see market-config.ts for the decimal conversion). All are integers.
 */

export type Side = 'buy' | 'sell';
export type OrderKind = 'limit' | 'market';
export type TimeInForce = 'GTC' | 'IOC' | 'FOK';
export type StpMode = 'none' | 'cancel-taker' | 'cancel-maker' | 'cancel-both';
export type CommandType = 'place' | 'cancel' | 'amend';

export interface PlaceCommand {
  readonly type: 'place';
  /** Order id chosen by the host (journal); a positive safe integer, unique among live orders. */
  readonly id: number;
  /** Owner (user/account) id; used for self-trade prevention and echoed in trades. */
  readonly owner: number;
  readonly side: Side;
  readonly kind: OrderKind;
  /** Limit price in ticks. Required for limit orders; omit (or 0) for market orders. */
  readonly price?: number;
  /** Quantity in lots. Required unless this is a quote-budget market buy. */
  readonly qty?: number;
  /** Market buy only: spend at most this many quote units (ticks x lots). */
  readonly quoteBudget?: number;
  /** Market only: never trade at a worse price than this (ticks). */
  readonly worstPrice?: number;
  readonly tif: TimeInForce;
  /** Limit GTC only: reject instead of trading if the order would cross. */
  readonly postOnly?: boolean;
  readonly stp: StpMode;
  /** Host time; echoed in every event so replay is byte-identical. */
  readonly ts: number;
}

export interface CancelCommand {
  readonly type: 'cancel';
  readonly id: number;
  readonly ts: number;
}

export interface AmendCommand {
  readonly type: 'amend';
  readonly id: number;
  /** New limit price in ticks (loses priority if it differs). */
  readonly price?: number;
  /** New remaining (open) quantity in lots; lower keeps priority, higher loses it. */
  readonly qty?: number;
  readonly ts: number;
}

export type Command = PlaceCommand | CancelCommand | AmendCommand;

/** Why a command changed nothing. Stable strings: the host maps them to API codes. */
export type RejectCode =
  | 'INVALID_COMMAND'
  | 'INVALID_ID'
  | 'INVALID_OWNER'
  | 'INVALID_SIDE'
  | 'INVALID_KIND'
  | 'INVALID_TIF'
  | 'INVALID_STP'
  | 'INVALID_PRICE'
  | 'INVALID_QTY'
  | 'INVALID_QUOTE_BUDGET'
  | 'INVALID_WORST_PRICE'
  | 'INVALID_POST_ONLY'
  | 'INVALID_AMEND'
  | 'DUPLICATE_ID'
  | 'POST_ONLY_WOULD_CROSS'
  | 'UNKNOWN_ORDER';

export type ResultCode = 'OK' | RejectCode;

/** user: cancel command; ioc: unfilled remainder of an IOC/market order; fok: FOK could not fill whole; stp: self-trade prevention. */
export type CancelReason = 'user' | 'ioc' | 'fok' | 'stp';

/** Order state after a place or amend command. */
export type DoneStatus = 'resting' | 'filled' | 'cancelled';

export interface AcceptedEvent {
  readonly type: 'accepted';
  readonly ts: number;
  readonly id: number;
  readonly owner: number;
  readonly side: Side;
  readonly kind: OrderKind;
  /** Limit price, or the worst-price bound of a market order (0 if none). */
  readonly price: number;
  /** Lots; 0 for a quote-budget market buy. */
  readonly qty: number;
  /** Quote units; 0 unless a quote-budget market buy. */
  readonly quoteBudget: number;
}

export interface RejectedEvent {
  readonly type: 'rejected';
  readonly ts: number;
  readonly id: number;
  readonly command: CommandType;
  readonly code: RejectCode;
}

export interface TradeEvent {
  readonly type: 'trade';
  readonly ts: number;
  /** Book-wide sequence, starts at 1, survives snapshot/restore: the settlement idempotency key. */
  readonly tradeId: number;
  readonly makerId: number;
  readonly makerOwner: number;
  readonly takerId: number;
  readonly takerOwner: number;
  readonly takerSide: Side;
  /** Always the maker's (resting) price. */
  readonly price: number;
  readonly qty: number;
  /** Maker's open quantity after this trade; 0 means the maker is fully filled and gone. */
  readonly makerRemaining: number;
}

export interface CancelledEvent {
  readonly type: 'cancelled';
  readonly ts: number;
  readonly id: number;
  readonly owner: number;
  readonly reason: CancelReason;
  /** Lots removed (0 for a quote-budget buy, whose leftover is in done.quoteLeft). */
  readonly qty: number;
}

export interface AmendedEvent {
  readonly type: 'amended';
  readonly ts: number;
  readonly id: number;
  readonly owner: number;
  readonly oldPrice: number;
  readonly oldQty: number;
  readonly price: number;
  readonly qty: number;
  readonly priorityKept: boolean;
}

export interface DoneEvent {
  readonly type: 'done';
  readonly ts: number;
  readonly id: number;
  readonly owner: number;
  readonly status: DoneStatus;
  /** Lots filled over the order's whole life. */
  readonly filledQty: number;
  /** Lots left resting on the book (0 unless status is resting). */
  readonly remainingQty: number;
  /** Unspent quote units of a quote-budget market buy; 0 otherwise. */
  readonly quoteLeft: number;
}

export type EngineEvent = AcceptedEvent | RejectedEvent | TradeEvent | CancelledEvent | AmendedEvent | DoneEvent;

export interface OrderView {
  readonly id: number;
  readonly owner: number;
  readonly side: Side;
  readonly price: number;
  /** Open quantity in lots. */
  readonly qty: number;
  readonly filled: number;
  readonly stp: StpMode;
  readonly postOnly: boolean;
}

export interface DepthLevel {
  readonly price: number;
  readonly qty: number;
  readonly orders: number;
}

export interface DepthView {
  /** Best (highest) first. */
  readonly bids: DepthLevel[];
  /** Best (lowest) first. */
  readonly asks: DepthLevel[];
}

export interface SnapshotOrder {
  readonly id: number;
  readonly owner: number;
  readonly price: number;
  readonly qty: number;
  readonly filled: number;
  readonly stp: StpMode;
  readonly postOnly: boolean;
}

/** Plain JSON-safe book state. Orders are listed in priority order (best price first, then FIFO). */
export interface BookSnapshot {
  readonly version: 1;
  /** Last trade id issued; the next trade gets tradeSeq + 1. */
  readonly tradeSeq: number;
  readonly bids: SnapshotOrder[];
  readonly asks: SnapshotOrder[];
}
