import type { Side } from '@kestrel/matching-engine';

/**
 * The sequencer's input: what is journaled, one array of these per group commit. Everything a
 * command does follows from it, the batch's time and the state before it (DESIGN §6), so the
 * journal alone rebuilds the books, the trade-account balances and every id.
 *
 * Amounts are decimal strings (at most 18 decimals, the ledger's scale); prices and quantities
 * of orders are engine integers (ticks, lots, quote units).
 */
export type SeqCommand = PlaceCmd | CancelCmd | PostCmd | MarketCmd;

export interface PlaceCmd {
  readonly t: 'place';
  readonly userId: number;
  readonly marketId: number;
  readonly side: Side;
  readonly type: 'limit' | 'market';
  /** Ticks: the limit price, or a market order's worst price (0 = none). */
  readonly price: number;
  /** Lots (0 for a market buy by quote amount). */
  readonly qty: number;
  /** Quote units for a market buy by amount. */
  readonly quoteBudget: number;
  readonly clientOrderId?: string | null;
  /** A forwarded request's id (api → engine transport), the idempotency key of a place without a client order id. */
  readonly requestId?: string;
  /**
   * The market units the price and quantity were converted with (`unitsKey`): a place whose units
   * are not the market's is refused (`UNITS_CHANGED`): an api process's registry not reloaded yet
   * after a change, a listing's registry reload before its market command, a change the sequencer
   * refused. Absent (every place journaled before this field existed): not checked.
   */
  readonly units?: string;
  /**
   * A forwarded place's deadline (ms since the epoch, on the engine's batch clock): journaled in a
   * later batch, it is refused (`EXPIRED`) and nothing happens. The engine sets it from the lifetime
   * the api process gave the request (`EngineRequest.ttlMs`, within that process's own timeout that
   * answers 2107) less what it waited in the command stream: a place left there by a failover is not
   * placed by the next holder long after its client was told the result is unknown (and, without a
   * client order id, could not retry it). Not remembered: a retry under the same client order id is
   * a new attempt. Absent (placed in the sequencer's process, or journaled before this field): no
   * deadline.
   */
  readonly notAfter?: number;
}

export interface CancelCmd {
  readonly t: 'cancel';
  readonly userId: number;
  readonly orderId: number;
}

/** An account: who owns it, which of their accounts, which currency. */
export interface AccountKey {
  readonly ownerType: 'user' | 'system';
  readonly ownerId: number;
  readonly accountType: string;
  readonly currencyId: number;
}

/** One account's change; `available`/`frozen` are signed decimal strings (absent = 0). */
export interface Leg extends AccountKey {
  readonly code: number;
  readonly available?: string;
  readonly frozen?: string;
}

/**
 * A money movement (deposit credit, withdrawal freeze/payout/release, transfer in/out, flash
 * exchange, funding, …): a balanced double-entry posting. The legs on accounts the sequencer
 * owns are checked and applied in memory, all or none; the other legs (database accounts) are
 * written by the projector with the same posting. `commandId` makes it idempotent.
 */
export interface PostCmd {
  readonly t: 'post';
  readonly commandId: string;
  readonly refType: string;
  readonly refId: string;
  readonly actor: string;
  readonly reason?: string;
  readonly memo?: string;
  readonly legs: readonly Leg[];
  /**
   * A deadline (ms since the epoch): a post whose batch is journaled after it is refused (`EXPIRED`),
   * however long it waited on its way (a forward past its timeout, a stalled journal write). A flash
   * conversion's is its quote's end: its price holds until then only. Absent: no deadline.
   */
  readonly notAfter?: number;
}

/** Adds a market or changes its fees: market parameters change only through the journal. */
export interface MarketCmd {
  readonly t: 'market';
  readonly market: MarketParams;
  /**
   * 2: a new tick size re-expresses the market's last trade price (or clears it when no whole
   * number of new ticks is that price). Commands journaled without it (before 2026-12-01) replay as
   * they were applied: the price kept in the old ticks.
   * 3: as 2, and a new base or quote currency clears the last trade price (it was the old pair's:
   * the mark price would read it as the new pair's). Commands journaled with 2 or without a version
   * replay as they were applied: the old pair's price kept.
   */
  readonly v?: 2 | 3;
}

export interface MarketParams {
  readonly id: number;
  readonly symbol: string;
  readonly baseId: number;
  readonly quoteId: number;
  readonly tickSize: string;
  readonly lotSize: string;
  readonly makerFee: string;
  readonly takerFee: string;
}

/** Result codes (no exceptions inside the sequencer). */
export type SeqCode =
  | 'OK'
  | 'INSUFFICIENT_BALANCE'
  | 'SELLABLE_INSUFFICIENT'
  | 'ORDER_NOT_FOUND'
  | 'ORDER_CLOSED'
  | 'MARKET_UNKNOWN'
  | 'INVALID_ORDER'
  | 'UNOWNED_DEBIT'
  | 'UNBALANCED'
  /** A place converted with market units that are not the market's now (a stale registry): nothing happened, retry. */
  | 'UNITS_CHANGED'
  /** A post or a forwarded place journaled after its deadline (`notAfter`): nothing happened. */
  | 'EXPIRED'
  /** A post whose reference, memo, command id or account type the ledger's columns cannot hold (too long, or a NUL character). */
  | 'UNSTORABLE';

/** An order as the sequencer knows it; amounts in ledger units (bigint, 10^-18). */
export interface OrderState {
  readonly id: number;
  readonly userId: number;
  readonly marketId: number;
  readonly side: Side;
  readonly type: 'limit' | 'market';
  readonly price: number;
  readonly qty: number;
  readonly quoteBudget: number;
  readonly clientOrderId: string | null;
  readonly createdTs: number;
  readonly frozenCurrency: number;
  frozenLeft: bigint;
  filledQty: bigint;
  filledQuote: bigint;
  fee: bigint;
  status: 'waiting' | 'completed' | 'cancelled';
  updatedTs: number;
}

/** A leg as applied: with the account's balances after it when the sequencer owns the account. */
export interface AppliedLeg extends AccountKey {
  readonly code: number;
  readonly available: bigint;
  readonly frozen: bigint;
  readonly availableAfter?: bigint;
  readonly frozenAfter?: bigint;
}

/** A ledger posting the projector writes. */
export interface AppliedPosting {
  readonly refType: string;
  readonly refId: string;
  readonly actor: string;
  readonly memo: string;
  readonly reason?: string;
  readonly commandId?: string;
  readonly legs: AppliedLeg[];
}

export interface TradeRecord {
  readonly marketId: number;
  readonly tradeId: number;
  readonly price: number;
  readonly lots: number;
  readonly qty: bigint;
  readonly quote: bigint;
  readonly takerSide: Side;
  readonly makerOrderId: number;
  readonly takerOrderId: number;
  readonly makerUserId: number;
  readonly takerUserId: number;
  readonly makerFee: bigint;
  readonly takerFee: bigint;
  readonly ts: number;
}

/** What one command did: its answer, and everything the projector and the pushes need. */
export interface SeqOutcome {
  readonly code: SeqCode;
  /** A retried client order id or command id: nothing new happened, this is the first one's result. */
  readonly duplicate?: boolean;
  /** place / cancel: the order's id (also for a duplicate whose order has left the book). */
  readonly orderId?: number;
  /** place / cancel: the order after the command (a copy; absent for a duplicate that has left the book). */
  readonly order?: OrderState;
  /** place: the command made `order` (the projector inserts it; every other order it changed exists already). */
  readonly created?: boolean;
  /** Every order the command changed (copies, final state after it). The lists are read-only: an empty one is shared. */
  readonly orders: readonly OrderState[];
  readonly trades: readonly TradeRecord[];
  readonly postings: readonly AppliedPosting[];
  /** Users whose balances or orders changed. */
  readonly users: readonly number[];
  /** Markets whose book changed. */
  readonly books: readonly number[];
  /** UNITS_CHANGED: the market's parameters as the sequencer trades with them (the caller converts with these). */
  readonly market?: MarketParams;
}
