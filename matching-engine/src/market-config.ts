/**
 * Decimal strings <-> engine integers. Arithmetic is on BigInt mantissas, never floats, and
 * conversions into the engine truncate (DESIGN §1.3: displayed amounts are truncated).
 *
 * Units: price ticks (price / tickSize), quantity lots (qty / lotSize), and quote units
 * (ticks x lots, i.e. multiples of tickSize * lotSize in the quote currency). A trade of q
 * lots at p ticks costs exactly p * q quote units.
 */

export interface MarketConfig {
  /** e.g. "BTC/USDT". */
  readonly symbol: string;
  /** Price step as a positive decimal string, e.g. "0.01". */
  readonly tickSize: string;
  /** Quantity step as a positive decimal string, e.g. "0.0001". */
  readonly lotSize: string;
  /** Smallest order quantity (decimal string); the host enforces it with `minLots`. */
  readonly minQty: string;
}

interface Scaled {
  readonly mantissa: bigint;
  readonly scale: number;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Powers of ten up to 10^40, built once: every order's price and quantity meets two of them. */
const POW10: readonly bigint[] = Array.from({ length: 41 }, (_, i) => 10n ** BigInt(i));
const pow10 = (n: number): bigint => POW10[n] ?? 10n ** BigInt(n);

/** Parses a plain non-negative decimal ("12", "0.50"); anything else (sign, exponent, spaces) is undefined. */
export function parseDecimal(text: string): Scaled | undefined {
  if (typeof text !== 'string') return undefined;
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const frac = m[2] ?? '';
  return { mantissa: BigInt(m[1] + frac), scale: frac.length };
}

/** mantissa / 10^scale as a fixed-point string with exactly `scale` decimals. */
export function formatScaled(mantissa: bigint | number, scale: number): string {
  const digits = mantissa.toString().padStart(scale + 1, '0');
  if (scale === 0) return digits;
  return `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
}

/**
 * floor(value / step) for decimal strings; undefined if not a decimal or beyond 2^53 - 1, and with
 * `exact`, also when value is not a whole number of steps.
 */
function toSteps(value: string, step: Scaled, exact = false): number | undefined {
  const fast = typeof value === 'string' ? toStepsFast(value, step, exact) : undefined;
  if (fast !== SLOW) return fast;
  return toStepsExact(value, step, exact);
}

/** Returned by `toStepsFast` when the value needs the BigInt path. */
const SLOW = -1;
/**
 * Below this, integers are exact in a double and so is the floor of their quotient: the division's
 * rounding error (under 2^-53 of the quotient) is smaller than a quotient's distance to the next
 * whole number (at least 1 / num of it, more than 2^-52), so it never rounds up to that number.
 */
const FAST_MAX = 2 ** 52;

/**
 * `toSteps` for the usual order (a price or quantity and a step whose mantissas times the
 * powers of ten stay below 2^52): the digits read in one pass, no regular
 * expression and no BigInt. The arithmetic is on whole numbers below 2^52, where every double
 * here is exact (FAST_MAX). Anything else gives SLOW, and the BigInt path decides; a malformed
 * value is undefined on both.
 */
function toStepsFast(value: string, step: Scaled, exact: boolean): number | undefined {
  const n = value.length;
  let mantissa = 0;
  let digits = 0;
  let scale = -1;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      if (scale >= 0) scale++;
    } else if (c === 46 && scale < 0 && digits > 0) scale = 0;
    else return undefined;
  }
  if (digits === 0 || scale === 0) return undefined; // "" or "12."
  if (scale < 0) scale = 0;
  // Each of these only grows once it is past 2^53 and inexact, so below FAST_MAX it is exact.
  const num = mantissa * 10 ** step.scale;
  const den = Number(step.mantissa) * 10 ** scale;
  if (!(num < FAST_MAX && den < FAST_MAX)) return SLOW;
  if (exact && num % den !== 0) return undefined;
  return Math.floor(num / den);
}

function toStepsExact(value: string, step: Scaled, exact: boolean): number | undefined {
  const v = parseDecimal(value);
  if (v === undefined) return undefined;
  // value / step = (mv / 10^sv) / (ms / 10^ss) = mv * 10^ss / (ms * 10^sv); BigInt division truncates.
  const num = v.mantissa * pow10(step.scale);
  const den = step.mantissa * pow10(v.scale);
  if (exact && num % den !== 0n) return undefined;
  const q = num / den;
  return q <= MAX_SAFE ? Number(q) : undefined;
}

function fromSteps(n: number, step: Scaled): string {
  // A non-integer here is a bug in the caller, not a business outcome.
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a non-negative safe integer: ${n}`);
  // A product of integers is exact in a double while it stays a safe integer (every order's price
  // and quantity): no BigInt then. Past that (or with a step too fine for a double), BigInt.
  const m = Number(step.mantissa);
  const product = n * m;
  if (Number.isSafeInteger(m) && Number.isSafeInteger(product)) return formatScaled(product, step.scale);
  return formatScaled(BigInt(n) * step.mantissa, step.scale);
}

export interface Market {
  readonly config: MarketConfig;
  /** Smallest accepted quantity in lots (minQty rounded up to a whole lot). */
  readonly minLots: number;
  priceToTicks(price: string): number | undefined;
  /** The price in ticks when it is a whole number of ticks; undefined when it falls between two (or as priceToTicks). */
  priceToTicksExact(price: string): number | undefined;
  ticksToPrice(ticks: number): string;
  qtyToLots(qty: string): number | undefined;
  lotsToQty(lots: number): string;
  quoteToUnits(amount: string): number | undefined;
  unitsToQuote(units: number): string;
}

/** Builds the converters for one market; throws on a malformed config (a deployment error). */
export function createMarket(config: MarketConfig): Market {
  const tick = parseDecimal(config.tickSize);
  const lot = parseDecimal(config.lotSize);
  if (tick === undefined || tick.mantissa === 0n) throw new Error(`market ${config.symbol}: bad tickSize ${config.tickSize}`);
  if (lot === undefined || lot.mantissa === 0n) throw new Error(`market ${config.symbol}: bad lotSize ${config.lotSize}`);
  const unit: Scaled = { mantissa: tick.mantissa * lot.mantissa, scale: tick.scale + lot.scale };
  const min = parseDecimal(config.minQty);
  if (min === undefined) throw new Error(`market ${config.symbol}: bad minQty ${config.minQty}`);
  const minFloor = toSteps(config.minQty, lot) ?? 0;
  // Round up: a quantity of minLots lots must be at least minQty.
  const minIsWhole = BigInt(minFloor) * lot.mantissa * 10n ** BigInt(min.scale) === min.mantissa * 10n ** BigInt(lot.scale);
  const minLots = Math.max(1, minIsWhole ? minFloor : minFloor + 1);
  return {
    config,
    minLots,
    priceToTicks: (price) => toSteps(price, tick),
    priceToTicksExact: (price) => toSteps(price, tick, true),
    ticksToPrice: (ticks) => fromSteps(ticks, tick),
    qtyToLots: (qty) => toSteps(qty, lot),
    lotsToQty: (lots) => fromSteps(lots, lot),
    quoteToUnits: (amount) => toSteps(amount, unit),
    unitsToQuote: (units) => fromSteps(units, unit),
  };
}
