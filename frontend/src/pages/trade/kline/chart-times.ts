import type { Period } from '@kestrel/contracts';
import type { TickMarkType } from 'lightweight-charts';

/** lightweight-charts' TickMarkType values (the module itself is loaded with the chart only). */
export const TICK = { Year: 0, Month: 1, DayOfMonth: 2, Time: 3 } as const;

/**
 * The chart's time labels (the crosshair's and the time axis's). Intraday bars read in the user's
 * time zone, as every other time in the app (the latest trades, the orders); day, week and month
 * bars start at 00:00 UTC (docs/api.md) and are labelled by that UTC date. lightweight-charts alone
 * shows every time in UTC: a user at UTC+8 saw the newest candle at 05:47 beside trades at 13:47.
 */
export function chartTimes(period: Period, locale: string, timeZone?: string) {
  const daily = period === '1day' || period === '1week' || period === '1mon';
  const zone = daily ? 'UTC' : timeZone;
  const format = (options: Intl.DateTimeFormatOptions) => {
    const f = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
    return (seconds: number) => f.format(new Date(seconds * 1000));
  };
  const hm = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
  const year = format({ year: 'numeric' });
  const month = format({ month: 'short' });
  const day = format({ month: 'short', day: 'numeric' });
  const time = format(hm);
  const dayAndTime = format({ month: 'short', day: 'numeric', ...hm });
  // The clock in the zone shown, in digits every locale agrees on.
  const clock = new Intl.DateTimeFormat('en-US', { ...hm, timeZone: zone });
  const midnight = (seconds: number) => clock.format(new Date(seconds * 1000)) === '00:00';
  return {
    /** The crosshair's label: the bar's date, and its time for an intraday bar. */
    crosshair: format(daily ? { year: 'numeric', month: 'short', day: 'numeric' } : { year: 'numeric', month: 'short', day: 'numeric', ...hm }),
    /**
     * An axis label, as detailed as the library asks for. The library marks a new day, month or
     * year where the UTC date changes; on an intraday chart shown in another zone that mark falls at
     * another hour (08:00 in Shanghai), so it is labelled with its date and that hour (regression: a
     * date alone there read as the bar of local midnight); at a local midnight, the date alone.
     */
    tick: (seconds: number, type: TickMarkType) => {
      if (type === TICK.Time) return time(seconds);
      if (!daily && !midnight(seconds)) return dayAndTime(seconds);
      return type === TICK.Year ? year(seconds) : type === TICK.Month ? month(seconds) : day(seconds);
    },
  };
}
