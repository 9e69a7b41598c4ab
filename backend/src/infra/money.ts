import Decimal from 'decimal.js';

/**
 * Decimal arithmetic for money (DESIGN §1.3): truncating (ROUND_DOWN), never floats, and plain
 * notation so strings round-trip through the database's numeric columns.
 */
export const Money = Decimal.clone({ precision: 64, rounding: Decimal.ROUND_DOWN, toExpNeg: -64, toExpPos: 64 });
export type Money = InstanceType<typeof Money>;

/** The scale of every money column (numeric(36,18)). */
export const MONEY_SCALE = 18;

const DECIMAL_RE = /^-?\d{1,18}(\.\d{1,18})?$/;

export function isDecimalString(value: string): boolean {
  return DECIMAL_RE.test(value);
}

export function money(value: string | number | Money): Money {
  return new Money(value);
}

/** Canonical string for storage and answers: at most 18 decimals, truncated, no trailing zeros. */
export function moneyString(value: string | Money): string {
  return new Money(value).toDecimalPlaces(MONEY_SCALE, Decimal.ROUND_DOWN).toString();
}

/** Truncate for display to `decimals` places (the spec: displayed amounts are truncated). */
export function truncate(value: string | Money, decimals: number): string {
  return new Money(value).toDecimalPlaces(decimals, Decimal.ROUND_DOWN).toString();
}
