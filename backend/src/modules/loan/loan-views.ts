import { money, moneyString, truncate } from '../../infra/money';
import type { Leg } from '../engine/sequencer/commands';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import type { Movement } from '../ledger/ledger.service';
import { Coin } from '../reference/coin.entity';
import { uploadUrl } from '../upload/upload.service';
import type { LoanOrder, LoanStatus } from './loan-order.entity';
import type { LoanProduct } from './loan-product.entity';
import type { LoanRepayment } from './loan-repayment.entity';
import { loanInterest, repayAmount } from './loan-terms';

/** The lending pool: a database account of the system (owner 0) per currency. */
export const poolLeg = (currencyId: number, code: LedgerCode, available: string): Movement & Leg => ({
  ownerType: 'system',
  ownerId: SYSTEM_OWNER_ID,
  accountType: 'loan-pool',
  currencyId,
  code,
  available,
  frozen: '0',
});
export const transitLeg = (currencyId: number, code: LedgerCode, available: string): Movement & Leg => ({
  ownerType: 'system',
  ownerId: SYSTEM_OWNER_ID,
  accountType: 'transit',
  currencyId,
  code,
  available,
  frozen: '0',
});

/** Statuses a repayment can be made in. */
export const REPAYABLE: readonly LoanStatus[] = ['approved', 'repaying', 'overdue'];

export function productView(p: LoanProduct, coin: Pick<Coin, 'symbol' | 'displayDecimals'>) {
  return {
    id: p.id,
    code: p.code,
    name: p.name,
    lender: p.lender,
    currency_id: p.currencyId,
    symbol: coin.symbol,
    decimals: coin.displayDecimals,
    min_amount: moneyString(p.minAmount),
    max_amount: moneyString(p.maxAmount),
    cycles: p.cycles,
    daily_rate: moneyString(p.dailyRate),
    repay_method: p.repayMethod,
    enabled: p.enabled,
  };
}

/** What a user sees before applying: interest and the whole repayment for an amount and cycle. */
export function preview(p: LoanProduct, coin: Pick<Coin, 'displayDecimals'>, amount: string, days: number) {
  const interest = loanInterest(amount, p.dailyRate, days, coin.displayDecimals);
  return { product_id: p.id, amount: moneyString(amount), days, daily_rate: moneyString(p.dailyRate), interest, repay_amount: repayAmount(amount, interest) };
}

/** The user's state: a reserved approval whose payment is on its way still reads "approving". */
export function shownStatus(s: LoanStatus): Exclude<LoanStatus, 'disbursing'> {
  return s === 'disbursing' ? 'approving' : s;
}

export function orderView(o: LoanOrder, coin: Pick<Coin, 'symbol' | 'displayDecimals'>, forOperator = false) {
  const d = coin.displayDecimals;
  const decided = !['approving', 'disbursing', 'rejected'].includes(o.status);
  // Before approval the interest is the preview (the same formula, fixed at approval).
  const interest = decided ? moneyString(o.interest) : loanInterest(o.amount, o.dailyRate, o.days, d);
  const repay = decided ? moneyString(o.repayAmount) : repayAmount(o.amount, interest);
  return {
    id: o.id,
    ...(forOperator ? { user_id: o.userId, status_internal: o.status, reviewed_by: o.reviewedBy } : {}),
    product_id: o.productId,
    currency_id: o.currencyId,
    symbol: coin.symbol,
    decimals: d,
    amount: truncate(o.amount, d),
    days: o.days,
    daily_rate: moneyString(o.dailyRate),
    repay_method: 'maturity',
    lender: o.lender,
    interest: truncate(interest, d),
    repay_amount: truncate(repay, d),
    // Nothing to repay on a loan never paid out (a rejected application keeps its asked terms above).
    remaining: truncate(decided ? o.remaining : o.status === 'rejected' ? '0' : repay, d),
    repaid: truncate(decided ? money(o.repayAmount).minus(o.remaining) : '0', d),
    in_review: truncate(o.pending, d),
    status: forOperator ? o.status : shownStatus(o.status),
    overdue: o.status === 'overdue',
    // A rejection's reason is the user's; an approval's note is the operators' (docs/api.md).
    reason: forOperator || o.status === 'rejected' ? o.reason : null,
    images: { front: uploadUrl(o.frontImage), back: uploadUrl(o.backImage), passport: uploadUrl(o.passportImage) },
    created_at: iso(o.createdAt),
    approved_at: iso(o.disbursedAt),
    due_at: iso(o.dueAt),
    repaid_at: iso(o.repaidAt),
  };
}

export function repaymentView(r: LoanRepayment, coin: Pick<Coin, 'symbol' | 'displayDecimals'>, forOperator = false) {
  const d = coin.displayDecimals;
  return {
    id: r.id,
    ...(forOperator ? { user_id: r.userId, reviewed_by: r.reviewedBy } : {}),
    order_id: r.orderId,
    currency_id: r.currencyId,
    symbol: coin.symbol,
    kind: r.kind,
    amount: truncate(r.amount, d),
    interest_part: truncate(r.interestPart, d),
    principal_part: truncate(r.principalPart, d),
    image_url: r.image ? uploadUrl(r.image) : null,
    status: r.status,
    reason: forOperator || r.status === 'rejected' || r.status === 'failed' ? r.reason : null,
    created_at: iso(r.createdAt),
    reviewed_at: iso(r.reviewedAt),
  };
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
