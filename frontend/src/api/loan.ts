import { get, post } from './client';
import type { Page } from './trading';

/** Loans (`borrow/*`): docs/api.md "Loans". */
export type LoanStatus = 'approving' | 'rejected' | 'approved' | 'repaying' | 'repaid' | 'overdue';
export type LoanFilter = 'all' | LoanStatus;
export const LOAN_FILTERS: LoanFilter[] = ['all', 'approving', 'rejected', 'approved', 'repaying', 'repaid', 'overdue'];

export interface LoanProduct {
  id: number;
  code: string;
  name: string;
  lender: string;
  currency_id: number;
  symbol: string;
  decimals: number;
  min_amount: string;
  max_amount: string;
  cycles: number[];
  daily_rate: string;
  repay_method: 'maturity';
}
export interface LoanPreview {
  product_id: number;
  amount: string;
  days: number;
  daily_rate: string;
  interest: string;
  repay_amount: string;
}
export interface LoanOrder {
  id: string;
  product_id: number;
  currency_id: number;
  symbol: string;
  decimals: number;
  amount: string;
  days: number;
  daily_rate: string;
  repay_method: 'maturity';
  lender: string;
  interest: string;
  repay_amount: string;
  remaining: string;
  repaid: string;
  in_review: string;
  status: LoanStatus;
  overdue: boolean;
  reason: string | null;
  images: { front: string; back: string; passport: string };
  created_at: string;
  approved_at: string | null;
  due_at: string | null;
  repaid_at: string | null;
}
export interface LoanRepayment {
  id: string;
  order_id: string;
  symbol: string;
  kind: 'balance' | 'transfer';
  amount: string;
  interest_part: string;
  principal_part: string;
  image_url: string | null;
  status: 'pending' | 'done' | 'failed' | 'review' | 'approved' | 'rejected';
  reason: string | null;
  created_at: string;
  reviewed_at: string | null;
}
export interface RepayAddress {
  chain: string;
  address: string;
}

export const loanApi = {
  products: () => get<{ items: LoanProduct[]; preview: null }>('borrow/list'),
  preview: (productId: number, amount: string, days: number) =>
    get<{ items: LoanProduct[]; preview: LoanPreview }>('borrow/list', { product_id: productId, amount, days }, { quiet: true }),
  apply: (p: { product_id: number; amount: string; days: number; front_image: string; back_image: string; passport_image: string; client_id: string }) =>
    post<LoanOrder>('borrow/order/apply', p, { quiet: true }),
  orders: (status: LoanFilter, page = 1, limit = 50) => get<Page<LoanOrder>>('borrow/order/list', { status, page, limit }),
  detail: (orderId: string) => post<{ order: LoanOrder; addresses: RepayAddress[]; records: LoanRepayment[] }>('borrow/back/detail', { order_id: orderId }),
  repay: (p: { order_id: string; amount: string; client_id: string }) => post<LoanRepayment & { remaining: string }>('borrow/order/back', p, { quiet: true }),
  repayByTransfer: (p: { order_id: string; amount: string; image_id: string; client_id: string }) =>
    post<LoanRepayment & { remaining: string }>('borrow/back/apply', p, { quiet: true }),
  records: (orderId?: string, page = 1, limit = 50) => get<Page<LoanRepayment>>('borrow/back/list', { order_id: orderId, page, limit }),
  address: (orderId?: string) => get<{ currency_id: number; symbol: string; addresses: RepayAddress[] }>('borrow/repay_in_address', { order_id: orderId }),
};
