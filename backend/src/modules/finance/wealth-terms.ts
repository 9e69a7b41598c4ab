import { money, moneyString, truncate } from '../../infra/money';
import type { PenaltyMode, RateMode, WealthKind } from './wealth-product.entity';

/** Interest and penalties are truncated to this many decimals (USDT's precision). */
export const WEALTH_DECIMALS = 8;
/** A product is "rush purchase" when at most this share of its capacity is left. */
export const RUSH_SHARE = '0.1';
/** The flexible fund keeps this many days of interest reserved ahead (topped up by the daily job). */
export const FLEXIBLE_RESERVE_DAYS = 30;
export const DAY_MS = 86_400_000;

export type ListingStatus = 'soon' | 'in_progress' | 'rush' | 'sold_out' | 'ended';

/** UTC epoch day of an instant: day d runs from d × 24 h to (d + 1) × 24 h. */
export const epochDay = (at: Date): number => Math.floor(at.getTime() / DAY_MS);
export const dayStart = (day: number): Date => new Date(day * DAY_MS);

export interface ProductTerms {
  kind: WealthKind;
  days: number;
  rate: string;
  rateMode: RateMode;
  accrualMin: string;
}

/**
 * What an order of `amount` earns: the daily interest (principal × daily rate, truncated) and, for
 * fixed terms, the whole promised interest. With a total yield, the total is principal × yield
 * (truncated) and the last day pays what truncating the daily share left over, so the days sum to it.
 */
export function interestOf(t: ProductTerms, amount: string): { daily: string; total: string } {
  const a = money(amount);
  if (t.kind === 'flexible') {
    if (a.lt(t.accrualMin)) return { daily: '0', total: '0' };
    return { daily: truncate(a.times(t.rate), WEALTH_DECIMALS), total: '0' };
  }
  if (t.rateMode === 'daily') {
    const daily = truncate(a.times(t.rate), WEALTH_DECIMALS);
    return { daily, total: moneyString(money(daily).times(t.days)) };
  }
  return { daily: truncate(a.times(t.rate).div(t.days), WEALTH_DECIMALS), total: truncate(a.times(t.rate), WEALTH_DECIMALS) };
}

/** Interest of the order's day number `k` (0-based from its start day). */
export function interestForDay(o: { kind: WealthKind; days: number; dailyInterest: string; totalInterest: string }, k: number): string {
  if (o.kind === 'flexible' || k < o.days - 1) return moneyString(o.dailyInterest);
  return moneyString(money(o.totalInterest).minus(money(o.dailyInterest).times(o.days - 1)));
}

/** The daily and total rate as a listing shows them (the other one derived, truncated). */
export function ratesOf(t: ProductTerms): { daily_rate: string; total_rate: string } {
  if (t.kind === 'flexible' || t.rateMode === 'daily')
    return { daily_rate: moneyString(t.rate), total_rate: t.kind === 'flexible' ? '0' : moneyString(money(t.rate).times(t.days)) };
  return { daily_rate: truncate(money(t.rate).div(t.days), 10), total_rate: moneyString(t.rate) };
}

/**
 * Early-redemption penalty, deducted from the principal (never more than it):
 * ratio: ratio × remaining days × amount (spec §9: 0.4 %, 3 days, 1,000 → 12);
 * tip: multiple × the daily interest (the hosting tip: 1.5 × a day's interest); none: 0.
 */
export function penaltyOf(
  o: { amount: string; days: number; paidDays: number; dailyInterest: string; penaltyMode: PenaltyMode; penaltyRatio: string; penaltyMultiple: string },
  remainingDays = Math.max(0, o.days - o.paidDays),
): string {
  let p = money(0);
  if (o.penaltyMode === 'ratio') p = money(o.penaltyRatio).times(remainingDays).times(o.amount);
  else if (o.penaltyMode === 'tip') p = money(o.penaltyMultiple).times(o.dailyInterest);
  const capped = p.gt(o.amount) ? money(o.amount) : p;
  return truncate(capped, WEALTH_DECIMALS);
}

/** Coming soon / in progress / rush purchase (≤ 10 % of capacity left) / sold out / ended (sale over or closed). */
export function listingStatus(
  p: { enabled: boolean; saleStart: Date; saleEnd: Date | null; capacity: string; sold: string; minAmount: string },
  now: Date,
): ListingStatus {
  if (!p.enabled || (p.saleEnd && new Date(p.saleEnd).getTime() <= now.getTime())) return 'ended';
  if (new Date(p.saleStart).getTime() > now.getTime()) return 'soon';
  const left = money(p.capacity).minus(p.sold);
  if (left.lte(0) || left.lt(p.minAmount)) return 'sold_out';
  if (left.lte(money(p.capacity).times(RUSH_SHARE))) return 'rush';
  return 'in_progress';
}
