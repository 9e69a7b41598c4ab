import { get, post } from './client';
import type { Page } from './trading';

/** Wealth products (`lh/deposit…`): docs/api.md "Wealth products". */
export type WealthKind = 'fixed' | 'flexible' | 'mining';
export type ListingStatus = 'soon' | 'in_progress' | 'rush' | 'sold_out' | 'ended';
export type WealthOrderStatus = 'hosting' | 'completed' | 'redeemed';
export type PenaltyMode = 'ratio' | 'tip' | 'none';

export interface WealthProduct {
  id: number;
  code: string;
  kind: WealthKind;
  type: 1 | 2;
  name: string;
  currency: string;
  days: number;
  min_amount: string;
  daily_rate: string;
  total_rate: string;
  accrual_min: string;
  penalty_mode: PenaltyMode;
  penalty_ratio: string;
  penalty_multiple: string;
  capacity: string;
  sold: string;
  left: string;
  progress: string;
  rush_share: string;
  status: ListingStatus;
  sale_start: string;
  sale_end: string | null;
  starts_in_seconds: number;
  ends_in_seconds: number | null;
}
export interface WealthProductInfo extends WealthProduct {
  interest_start: string;
  maturity: string | null;
  example: { amount: string; daily: string; total: string };
}
export interface WealthOrder {
  order_id: string;
  product_id: number;
  name: string;
  code: string;
  kind: WealthKind;
  currency: string;
  amount: string;
  days: number;
  daily_interest: string;
  total_interest: string;
  earned: string;
  paid_days: number;
  remaining_days: number;
  interest_start: string;
  purchase_time: string;
  end_at: string | null;
  remaining_seconds: number;
  next_credit_at: string | null;
  completion_time: string | null;
  status: WealthOrderStatus;
  penalty_mode: PenaltyMode;
  penalty: string | null;
  refund: string | null;
}
export interface WealthReport {
  currency: string;
  held: string;
  earned_today: string;
  earned_total: string;
  hosting_orders: number;
  trust_available: string;
  trust_frozen: string;
}
export interface Redemption {
  order_id: string;
  preview: boolean;
  amount: string;
  remaining_days: number;
  penalty_mode: PenaltyMode;
  penalty_ratio: string;
  penalty_multiple: string;
  daily_interest: string;
  penalty: string;
  refund: string;
  earned: string;
}

export const financeApi = {
  /** type 1 = hosting (fixed-term and the flexible fund), type 2 = mining-machine rental. */
  products: (type: 1 | 2) => get<WealthProduct[]>('lh/deposit/config', { type }),
  product: (id: number) => get<WealthProductInfo>('lh/deposit/product_info', { id }),
  report: () => get<WealthReport>('lh/deposit/report'),
  orders: (status: WealthOrderStatus, page = 1, limit = 50) => get<Page<WealthOrder>>('lh/deposit/order', { status, page, limit }),
  buy: (p: { product_id: number; amount: string; agree: string; client_id: string }) => post<WealthOrder>('lh/deposit', p, { quiet: true }),
  preview: (orderId: string) => post<Redemption>('lh/deposit/cancel', { order_id: orderId, preview: 1 }),
  redeem: (orderId: string) => post<Redemption>('lh/deposit/cancel', { order_id: orderId }, { quiet: true }),
};
