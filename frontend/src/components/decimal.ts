import Decimal from 'decimal.js';

/**
 * Arithmetic on decimal strings for previews (fee, % of available, totals): decimal.js, results
 * truncated (ROUND_DOWN) to the given decimals and returned as plain strings, never JS numbers
 * (DESIGN §1 principle 3). The server computes the real amounts again.
 */
const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_DOWN, toExpNeg: -40, toExpPos: 40 });

/** Thousands grouped as the app shows amounts ("10,000", "1,234.5"): a first group without a leading zero. */
const GROUPED = /^[1-9]\d{0,2}(,\d{3})+(\.\d*)?$/;

/**
 * An amount field's change handler. Commas grouping thousands as the app itself shows amounts go (a
 * pasted "95,000" or "10,000.5" is 95000 or 10000.5, never 95 or 10); any other single comma is a
 * decimal comma and becomes a point (a phone's decimal keypad in a comma region offers only ","; the
 * field shows the point as soon as it is typed); spaces go (a pasted "50 " is sent as "50").
 */
export const typedDecimal = (set: (v: string) => void) => (v: string) => {
  const s = v.trim();
  set(GROUPED.test(s) ? s.replace(/,/g, '') : s.replace(',', '.'));
};

/** A valid non-negative decimal as typed into an amount field ("", "1.", ".5" are not). */
export const isAmount = (v: string) => /^\d+(\.\d+)?$/.test(v.trim());

const dec = (v: string | null | undefined) => new D(v && /^[+-]?\d*\.?\d+$/.test(v.trim()) ? v.trim() : '0');

export const add = (a: string, b: string, decimals: number) => dec(a).plus(dec(b)).toFixed(decimals, D.ROUND_DOWN);
export const sub = (a: string, b: string, decimals: number) => dec(a).minus(dec(b)).toFixed(decimals, D.ROUND_DOWN);
export const mul = (a: string, b: string, decimals: number) => dec(a).times(dec(b)).toFixed(decimals, D.ROUND_DOWN);
/** a / b truncated; "0" when b is zero. */
export const div = (a: string, b: string, decimals: number) => (dec(b).isZero() ? (0).toFixed(decimals) : dec(a).div(dec(b)).toFixed(decimals, D.ROUND_DOWN));
/** -1, 0 or 1. */
export const cmp = (a: string, b: string) => dec(a).comparedTo(dec(b));
export const isPositive = (v: string) => dec(v).greaterThan(0);
/** `percent` % of `value` (25 → a quarter), truncated. */
export const percentOf = (value: string, percent: number, decimals: number) => dec(value).times(percent).div(100).toFixed(decimals, D.ROUND_DOWN);
/** Truncated to a step such as a tick size "0.01" or lot size "0.0001". */
export const toStep = (value: string, step: string) => {
  const s = dec(step);
  if (s.isZero()) return dec(value).toFixed();
  const decimals = Math.max(0, s.decimalPlaces());
  return dec(value).div(s).floor().times(s).toFixed(decimals);
};
/** The number of decimals of a step ("0.01" → 2). */
export const stepDecimals = (step: string) => dec(step).decimalPlaces();
