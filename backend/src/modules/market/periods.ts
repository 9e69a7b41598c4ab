/** K-line periods of the spec; "time-share" is the 1-minute close line. */
export const PERIODS = ['1min', '5min', '30min', '60min', '1day', '1week', '1mon'] as const;
export type Period = (typeof PERIODS)[number];
export const REQUEST_PERIODS = ['time-share', ...PERIODS] as const;
export type RequestPeriod = (typeof REQUEST_PERIODS)[number];

const MINUTE = 60_000;
const FIXED: Partial<Record<Period, number>> = { '1min': MINUTE, '5min': 5 * MINUTE, '30min': 30 * MINUTE, '60min': 60 * MINUTE, '1day': 1440 * MINUTE };

/** Start (UTC, ms) of the candle that contains `ts`. Weeks start on Monday, months on the 1st. */
export function bucketStart(period: Period, ts: number): number {
  const fixed = FIXED[period];
  if (fixed) return Math.floor(ts / fixed) * fixed;
  const d = new Date(ts);
  if (period === '1mon') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return day - sinceMonday * 1440 * MINUTE;
}

export function storedPeriod(p: RequestPeriod): Period {
  return p === 'time-share' ? '1min' : p;
}
