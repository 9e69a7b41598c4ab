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

/** Truncate for display to `decimals` places (the spec: displayed amounts are truncated). */
export function truncate(value: string | Money, decimals: number): string {
  return new Money(value).toDecimalPlaces(decimals, Decimal.ROUND_DOWN).toString();
}

/**
 * Fixed-point money for the hot paths (ledger batches, settlement, candles): a bigint of
 * 10^-18 units, the columns' scale. Sums and differences are exact, products are truncated
 * toward zero (ROUND_DOWN, as `Money`), and nothing allocates a digit array per operation.
 */
export const UNIT = 10n ** BigInt(MONEY_SCALE);
const UNITS_RE = /^(-?)(\d+)(?:\.(\d{0,18}))?$/;
const ZEROS = '0'.repeat(MONEY_SCALE);

/** A decimal string (at most 18 decimals; e.g. a numeric column's text) in units. */
export function units(value: string): bigint {
  const m = UNITS_RE.exec(value);
  if (!m) throw new Error(`not a decimal amount with at most ${MONEY_SCALE} decimals: ${value}`);
  const frac = m[3] ?? '';
  const v = BigInt(m[2] + frac + ZEROS.slice(frac.length));
  return m[1] ? -v : v;
}

/** Units as the canonical money string (what `moneyString` gives for the same amount). */
export function unitsString(value: bigint): string {
  if (value === 0n) return '0';
  const negative = value < 0n;
  // One conversion to digits, then the point placed by position (no bigint division, no regex).
  const digits = (negative ? -value : value).toString();
  const cut = digits.length - MONEY_SCALE;
  let end = digits.length;
  while (end > 0 && end > cut && digits.charCodeAt(end - 1) === 48) end--; // trailing zeros of the fraction
  const int = cut > 0 ? digits.slice(0, cut) : '0';
  const frac = cut >= 0 ? digits.slice(cut, end) : end > 0 ? ZEROS.slice(0, -cut) + digits.slice(0, end) : '';
  const text = frac ? `${int}.${frac}` : int;
  return negative ? `-${text}` : text;
}

/**
 * A plain decimal that is exact already (a market's ticks or lots formatted at their scale, at
 * most 18 places) in the canonical form `moneyString` gives: the fraction's trailing zeros dropped.
 */
export function trimDecimal(text: string): string {
  if (!text.includes('.')) return text;
  let end = text.length;
  while (text.charCodeAt(end - 1) === 48) end--;
  if (text.charCodeAt(end - 1) === 46) end--;
  return text.slice(0, end);
}

/** Canonical string for storage and answers: at most 18 decimals, truncated, no trailing zeros. */
export function moneyString(value: string | Money): string {
  // A plain decimal string of at most 18 places (a column's text, an amount we built) needs no Decimal.
  if (typeof value === 'string' && UNITS_RE.test(value)) return unitsString(units(value));
  return new Money(value).toDecimalPlaces(MONEY_SCALE, Decimal.ROUND_DOWN).toString();
}

/** 10^0 … 10^36, built once (two of them on every fee). */
const POW10: readonly bigint[] = Array.from({ length: 2 * MONEY_SCALE + 1 }, (_, i) => 10n ** BigInt(i));
const pow10 = (n: number): bigint => POW10[n] ?? 10n ** BigInt(n);

/** a × b, truncated toward zero to `decimals` places (≤ 18). */
export function unitsTimes(a: bigint, b: bigint, decimals = MONEY_SCALE): bigint {
  return ((a * b) / pow10(2 * MONEY_SCALE - decimals)) * pow10(MONEY_SCALE - decimals);
}

/** a ÷ b at 18 places, truncated toward zero (b ≠ 0). */
export function unitsDiv(a: bigint, b: bigint): bigint {
  return (a * UNIT) / b;
}
