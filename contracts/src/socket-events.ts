/**
 * The Socket.IO contract between the API and the web app (DESIGN §8). Type-only: both sides
 * import it with `import type`, so it adds nothing at run time.
 *
 * Market topics: `tickers`, `depth:<symbol>`, `trades:<symbol>`, `kline:<symbol>:<period>`
 * (symbol as "BTC/USDT"; period as in kline/historyV3). The private room of the handshake
 * token's user receives `orders` and `balance` without subscribing.
 *
 * A socket that connects with `auth.feed = 'batch'` gets its market messages batched: one `feed`
 * event per conflation cycle carrying that cycle's messages for its topics (FeedItem).
 *
 * Order entry: with a user token in the handshake, the client places and cancels spot orders by
 * emitting `order` with an ack; the ack gets the same envelope as POST / PUT /api/coin/trade.
 */

export type Period = 'time-share' | '1min' | '5min' | '30min' | '60min' | '1day' | '1week' | '1mon';
export type Topic = 'tickers' | `depth:${string}` | `trades:${string}` | `kline:${string}:${Period}`;

/** Every market message: its topic, a per-topic sequence number and the server's send time (ms). */
export interface Envelope<T> {
  topic: Topic;
  seq: number;
  ts: number;
  data: T;
}

export interface TickerData {
  symbol: string;
  base: string;
  quote: string;
  last: string | null;
  change_pct: string;
  open_24h: string | null;
  high: string | null;
  low: string | null;
  volume: string;
  quote_volume: string;
}

export interface DepthData {
  symbol: string;
  /** [price, quantity], best first. */
  bids: Array<[string, string]>;
  asks: Array<[string, string]>;
}

export interface TradeData {
  trade_id: string;
  price: string;
  quantity: string;
  side: 'buy' | 'sell';
  time: number;
}

export interface CandleData {
  /** Candle open time, Unix seconds. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

export interface OrderData {
  order_id: string;
  symbol: string;
  status: 'waiting' | 'completed' | 'cancelled';
  filled_qty: string;
  filled_amount: string;
  fee: string;
}

export interface BalanceData {
  account_type: string;
  currency_id: number;
  available: string;
  frozen: string;
}

/** A delivered option: the two recorded ticks it was settled on, the result and what was paid. */
export interface OptionResultData {
  order_id: string;
  symbol: string;
  direction: 'up' | 'down';
  quantity: string;
  open_price: string;
  open_tick_id: string;
  delivery_price: string | null;
  delivery_tick_id: string | null;
  result: 'up' | 'down' | 'flat' | 'void' | null;
  payout: string | null;
  pnl: string | null;
}

/**
 * A market message as one item of a `feed` batch: the event it would have been sent as, and its
 * envelope (the same `{topic, seq, ts, data}`).
 */
export type FeedItem =
  | ['tickers', Envelope<TickerData[]>]
  | ['depth', Envelope<DepthData>]
  | ['trades', Envelope<TradeData[]>]
  | ['kline', Envelope<CandleData>];

export interface ServerToClientEvents {
  /**
   * Sockets that connected with `auth.feed = 'batch'` get their market messages this way: one
   * `feed` per conflation cycle with the cycle's messages for their topics, in order, instead of
   * one event per topic.
   */
  feed: (items: FeedItem[]) => void;
  tickers: (m: Envelope<TickerData[]>) => void;
  depth: (m: Envelope<DepthData>) => void;
  /** New trades since the previous message, oldest first. */
  trades: (m: Envelope<TradeData[]>) => void;
  /** The current (last) candle of a period. */
  kline: (m: Envelope<CandleData>) => void;
  /**
   * Private: your orders that changed, every change in the order it happened (an order that
   * changed twice appears twice): what one step of the projector wrote, in one message.
   */
  orders: (m: { seq: number; ts: number; data: OrderData[] }) => void;
  /** Private: your balances after a change (all accounts). */
  balance: (m: { seq: number; ts: number; data: BalanceData[] }) => void;
  /** Private: one of your options was delivered. */
  option: (m: { seq: number; ts: number; data: OptionResultData }) => void;
  /** Private: your open contract positions after a change (a mark tick that moves P/L or risk, an open, fill, close or TP/SL edit), conflated. */
  position: (m: { seq: number; ts: number; data: PositionsData }) => void;
  /** Private: a new message for the notices page, in the handshake's `lang`, with your unread count. */
  notice: (m: NoticeData) => void;
}

/** A contract position as lever/deal and lever/my_trade answer it (docs/api.md "Contracts"). */
export interface PositionData {
  id: string;
  symbol: string;
  side: 'long' | 'short';
  type: 'market' | 'limit';
  lots: number;
  multiple: number;
  lot_value: string;
  margin: string;
  fee: string;
  status: 'pending' | 'holding' | 'closed' | 'cancelled';
  target_price: string | null;
  open_price: string | null;
  open_tick_id: string | null;
  current_price: string | null;
  take_profit: string;
  stop_loss: string;
  pnl: string | null;
  risk_rate: string | null;
  maintenance_margin: string | null;
  liquidation_price: string | null;
  close_price: string | null;
  close_tick_id: string | null;
  close_reason: 'user' | 'liquidation' | 'stop_loss' | 'take_profit' | null;
  /** A close that fired (or that the user asked for) waiting to settle, at `price` (the house short of its profit). */
  closing: { reason: 'user' | 'liquidation' | 'stop_loss' | 'take_profit'; price: string | null; tick_id: string } | null;
  opened_at: string | null;
  closed_at: string | null;
  created_at: string;
}

/** The `position` push: every open (pending, holding) position of the user, and those that ended since the previous push. */
export interface PositionsData {
  positions: PositionData[];
  closed: Array<{ id: string; symbol: string; status: string; reason: PositionData['close_reason']; pnl: string | null }>;
}

/** A user message as notice/list answers it, plus the owner's unread count. */
export interface NoticeData {
  id: string;
  kind: string;
  title: string;
  content: string;
  ref: string;
  read: boolean;
  created_at: string;
  unread: number;
}

/** A topic's current state, answered to `subscribe`; later messages have a higher seq. */
export interface SnapshotData {
  topic: Topic;
  seq: number;
  data: TickerData[] | DepthData | TradeData[] | CandleData[];
}

/** The /api answer shape (`{type, code, message, data}`): success is `type: "ok", code: 1`. */
export interface ApiEnvelope<T> {
  type: string;
  code: number;
  message: string;
  data: T;
}

/** A spot order as /api/coin/trade answers it. */
export interface SpotOrderView {
  order_id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: string | null;
  quantity: string | null;
  amount: string | null;
  filled_qty: string;
  filled_amount: string;
  avg_price: string | null;
  fee: string;
  fee_currency: string;
  status: 'waiting' | 'completed' | 'cancelled';
  client_order_id: string | null;
  created_at: string;
  updated_at: string;
}

/** The body of POST /api/coin/trade (decimals as strings). */
export interface PlaceOrderParams {
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price?: string;
  quantity?: string;
  amount?: string;
  /** 1–64 of A–Z a–z 0–9 _ -: a retry with the same id places one order. */
  client_order_id?: string;
}

/** The body of PUT /api/coin/trade. */
export interface CancelOrderParams {
  order_id: string;
}

/** A request id: chosen by the client (a string of 1–64 characters or a safe integer), echoed in the ack. */
export type OrderRequestId = string | number;

export type OrderRequest = { id: OrderRequestId; method: 'place'; params: PlaceOrderParams } | { id: OrderRequestId; method: 'cancel'; params: CancelOrderParams };

/**
 * The answer to `order`: the request's id (null when the request had no usable one) and the
 * envelope HTTP would answer — the order on success (code 1), else `data: null` with the code
 * and localized message (401 without a valid user token).
 */
export type OrderAck = ApiEnvelope<SpotOrderView | null> & { id: OrderRequestId | null };

export interface ClientToServerEvents {
  subscribe: (topics: Topic[], ack: (snapshots: SnapshotData[] | { error: string }) => void) => void;
  unsubscribe: (topics: Topic[], ack?: () => void) => void;
  /** Place or cancel a spot order (user token in the handshake); always pass the ack. */
  order: (request: OrderRequest, ack: (answer: OrderAck) => void) => void;
}
