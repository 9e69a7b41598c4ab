/**
 * Display formatting of decimal strings (DESIGN §1 principle 3): amounts are truncated, never
 * rounded, and never pass through a JavaScript float.
 */
import { currentLang, HTML_LANG } from '../i18n/i18n';

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

function parts(value: string): { sign: string; int: string; frac: string } | null {
  const m = DECIMAL.exec(value.trim());
  if (!m || (m[2] === '' && !m[3])) return null;
  return { sign: m[1] === '-' ? '-' : '', int: m[2].replace(/^0+(?=\d)/, '') || '0', frac: m[3] ?? '' };
}

const group = (int: string) => int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** "91234.56789", 2 → "91,234.56"; pads to `decimals`; "-0.00" becomes "0.00". Invalid input → "--". */
export function truncate(value: string | null | undefined, decimals: number, grouping = true): string {
  if (value === null || value === undefined) return '--';
  const p = parts(value);
  if (!p) return '--';
  const frac = p.frac.slice(0, decimals).padEnd(decimals, '0');
  const zero = /^0*$/.test(p.int + frac);
  const int = grouping ? group(p.int) : p.int;
  return `${zero ? '' : p.sign}${int}${decimals > 0 ? `.${frac}` : ''}`;
}

/**
 * A balance or amount as the money screens show it: grouped, truncated to `decimals` (the most any
 * coin has), without trailing zeros: "10000.00000000" → "10,000", "-99.26490000" → "-99.2649".
 */
export function amountText(value: string | null | undefined, decimals = 8): string {
  const s = truncate(value, decimals);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** How many decimals a price shows: more for small prices, so a 0.0004 coin still reads. */
export function priceDecimals(value: string | null | undefined): number {
  const p = value ? parts(value) : null;
  if (!p) return 2;
  if (p.int !== '0') return p.int.length >= 4 ? 2 : 4;
  const lead = /^0*/.exec(p.frac)![0].length;
  return Math.min(8, lead + 4);
}

/** Compact volume, truncated: "12345678.9" → "12.34M". */
export function compact(value: string | null | undefined, decimals = 2): string {
  const p = value ? parts(value) : null;
  if (!p) return '--';
  const units: Array<[number, string]> = [
    [9, 'B'],
    [6, 'M'],
    [3, 'K'],
  ];
  for (const [digits, unit] of units) {
    if (p.int.length > digits) {
      const cut = p.int.length - digits;
      return `${truncate(`${p.sign}${p.int.slice(0, cut)}.${p.int.slice(cut)}`, decimals)}${unit}`;
    }
  }
  return truncate(value!, decimals);
}

export type Direction = 'up' | 'down' | 'flat';

/** The direction of a signed decimal string ("-1.20" → down, "0.00" → flat). */
export function direction(value: string | null | undefined): Direction {
  const p = value ? parts(value) : null;
  if (!p || /^0*$/.test(p.int + p.frac)) return 'flat';
  return p.sign === '-' ? 'down' : 'up';
}

/** A change in percent with its sign: "+1.25%", "−0.40%", "0.00%" (truncated). */
export function signedPercent(value: string | null | undefined, decimals = 2): string {
  const dir = direction(value);
  const abs = truncate((value ?? '0').replace(/^[+-]/, ''), decimals, false);
  return `${dir === 'up' ? '+' : dir === 'down' ? '−' : ''}${abs}%`;
}

/**
 * A time from the API written the way the app's language writes it (not the device's): the date
 * and time (`both`), or one of them. `opts` adds to the language's defaults (e.g. `hour12: false`).
 */
export function formatTime(value: string | number | Date, part: 'both' | 'date' | 'time' = 'both', opts: Intl.DateTimeFormatOptions = {}): string {
  const d = value instanceof Date ? value : new Date(value);
  const locale = HTML_LANG[currentLang()];
  return part === 'date' ? d.toLocaleDateString(locale, opts) : part === 'time' ? d.toLocaleTimeString(locale, opts) : d.toLocaleString(locale, opts);
}
