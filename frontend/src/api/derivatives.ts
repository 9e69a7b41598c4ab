import { get, post } from './client';
import type { Page } from './trading';

/** Contracts (`lever/*`) and options (`microtrade/*`): docs/api.md "Contracts", "Options". */
export type PositionStatus = 'pending' | 'holding' | 'closed' | 'cancelled';
export type CloseReason = 'user' | 'take_profit' | 'stop_loss' | 'liquidation';
export interface Position {
  id: string;
  symbol: string;
  side: 'long' | 'short';
  type: 'market' | 'limit';
  lots: number;
  multiple: number;
  lot_value: string;
  margin: string;
  fee: string;
  status: PositionStatus;
  target_price: string | null;
  open_price: string | null;
  current_price: string | null;
  take_profit: string;
  stop_loss: string;
  pnl: string | null;
  risk_rate: string | null;
  maintenance_margin: string | null;
  liquidation_price: string | null;
  close_price: string | null;
  close_reason: CloseReason | null;
  /** A close that fired (or that you asked for) waiting for the house to pay: it settles at `price`. */
  closing: { reason: CloseReason; price: string | null; tick_id: string } | null;
  opened_at: string | null;
  closed_at: string | null;
  created_at: string;
}
export interface LeverDeal {
  symbol: string;
  multiples: number[];
  lot_value: string;
  min_lots: number;
  max_lots: number;
  fee_rate: string;
  maintenance_rate: string;
  available: string;
  frozen: string;
  last_price: string | null;
  mark_price: string | null;
  positions: Position[];
}
export interface LeverSubmit {
  symbol: string;
  side: 'long' | 'short';
  type: 'market' | 'limit';
  lots: string;
  multiple: string;
  price?: string;
  take_profit: string;
  stop_loss: string;
  client_id: string;
}

export interface OptionPeriod {
  id: number;
  seconds: number;
  profit_ratio: string;
  min_qty: string;
  max_qty: string;
  fee_rate: string;
  enabled: boolean;
}
export interface Payable {
  currency_id: number;
  symbol: string;
  available: string;
  frozen: string;
}
export type OptionResult = 'up' | 'down' | 'flat' | 'void';
export interface OptionOrder {
  order_id: string;
  symbol: string;
  direction: 'up' | 'down';
  quantity: string;
  fee: string;
  seconds: number;
  profit_ratio: string;
  open_price: string;
  open_tick_id: string;
  open_time: string;
  purchase_time: string;
  deliver_at: string;
  remaining_seconds: number;
  status: 'pending' | 'delivered';
  result: OptionResult | null;
  delivery_price: string | null;
  delivery_tick_id: string | null;
  payout: string | null;
  pnl: string | null;
}
export interface Tick {
  id: string;
  price: string;
  time: string;
}
export interface OptionAudit {
  order_id: string;
  symbol: string;
  direction: 'up' | 'down';
  open_tick: Tick | null;
  deliver_at: string;
  delivery_tick: Tick | null;
  result: OptionResult | null;
  rule: string;
  /** A delivery tick more than this after `deliver_at` makes the option void (its stake returned); null: delivered before the bound existed, never void. */
  void_after_ms: number | null;
  /** No sample at or after `deliver_at` for this long: void without a delivery tick (`ticks` are listed up to then). */
  stranded_after_ms: number;
  /** `sample`: the once-a-second sampler's (only these deliver); `deal`: recorded when someone dealt at the price now. */
  ticks: Array<Tick & { source: 'sample' | 'deal' }>;
  /** Every tick from the open on is listed (each stretch, before and from the delivery time, holds at most 5,000). */
  ticks_complete: boolean;
  /** Every tick from the delivery time on is listed: what decides the result. */
  delivery_ticks_complete: boolean;
}

/** lever/audit (public): the settlement audit of one closed position, docs/api.md. */
export interface LeverAudit {
  position_id: string;
  symbol: string;
  side: 'long' | 'short';
  type: 'market' | 'limit';
  lots: number;
  lot_value: string;
  multiple: number;
  maintenance_rate: string;
  take_profit: string;
  stop_loss: string;
  close_reason: 'user' | 'take_profit' | 'stop_loss' | 'liquidation' | null;
  open_tick: Tick;
  close_tick: Tick;
  formula: Record<'notional' | 'margin' | 'fee' | 'maintenance_margin' | 'pnl' | 'credited' | 'net' | 'trigger', string>;
  values: Record<'notional' | 'margin' | 'fee' | 'maintenance_margin' | 'liquidation_price' | 'pnl' | 'credited' | 'net', string>;
  result: { pnl: string; close_price: string; closed_at: string | null };
  checks: Record<string, boolean>;
  ticks: Tick[];
  ticks_complete: boolean;
}

export const leverApi = {
  deal: (symbol: string) => post<LeverDeal>('lever/deal', { symbol }, { quiet: true }),
  submit: (order: LeverSubmit) => post<Position>('lever/submit', { ...order }),
  list: (status: PositionStatus, page = 1, limit = 20) => post<Page<Position>>('lever/my_trade', { status, page, limit }),
  close: (id: string) => post<Position>('lever/close', { id }),
  cancel: (id: string) => post<Position>('lever/cancel', { id }),
  /** Quiet: the TP/SL sheet shows the server's message (the side rule) under its fields. */
  tpsl: (id: string, take_profit: string, stop_loss: string) => post<Position>('lever/tpsl', { id, take_profit, stop_loss }, { quiet: true }),
  /** Public; quiet: the audit view shows its own failure line. */
  audit: (positionId: string) => get<LeverAudit>('lever/audit', { position_id: positionId }, { quiet: true }),
};

export const optionApi = {
  seconds: () => get<OptionPeriod[]>('microtrade/seconds', undefined, { quiet: true }),
  payable: () => get<Payable[]>('microtrade/payable_currencies', undefined, { quiet: true }),
  /** Quiet: the buy popup shows the refusal itself (2402 becomes a "go and verify?" confirm). */
  submit: (order: { period_id: number | string; symbol: string; direction: 'up' | 'down'; quantity: string; client_id: string }) =>
    post<OptionOrder>('microtrade/submit', { ...order }, { quiet: true }),
  list: (status: 'pending' | 'delivered', page = 1, limit = 20) => get<Page<OptionOrder>>('microtrade/lists', { status, page, limit }),
  ticks: (orderId: string) => get<OptionAudit>('microtrade/ticks', { order_id: orderId }),
};
