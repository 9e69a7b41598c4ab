import { units, unitsString, unitsTimes } from '../../infra/money';

/** Prices: positive, at most 8 decimals and 12 integer digits (so fee × rate is exact at 18). */
export const PRICE_RE = /^\d{1,12}(\.\d{1,8})?$/;
/** Fee rates: 0 to 0.5, at most 8 decimals. */
export const FEE_RATE_RE = /^0(\.\d{1,8})?$/;
export const MAX_FEE_RATE = '0.5';
/** Fees are truncated to this many decimals (USDT's display precision here). */
export const FEE_DECIMALS = 8;

export interface SaleSplit {
  price: string;
  fee: string;
  proceeds: string;
}

/**
 * A sale's split: the buyer pays `price` (700); `fee` = price × rate truncated to 8 decimals goes
 * to the fee account (701); the seller gets `proceeds` = price − fee (702). Exact: fee + proceeds = price.
 */
export function splitSale(price: string, feeRate: string): SaleSplit {
  const p = units(price);
  const fee = unitsTimes(p, units(feeRate), FEE_DECIMALS);
  return { price: unitsString(p), fee: unitsString(fee), proceeds: unitsString(p - fee) };
}

/**
 * An owner as the public sees them: the first two and the last character of the nickname with
 * the middle hidden (`ke***1`); very short names keep only their first character.
 */
export function maskName(name: string): string {
  const chars = [...name.trim()];
  if (chars.length === 0) return '***';
  if (chars.length <= 3) return `${chars[0]}***`;
  return `${chars.slice(0, 2).join('')}***${chars[chars.length - 1]}`;
}
