import { chartTimes, TICK } from './chart-times';

// 2026-12-04 05:47 UTC, 13:47 in Shanghai.
const at = Date.UTC(2026, 11, 4, 5, 47) / 1000;

describe('chart time labels', () => {
  it("show an intraday bar in the user's time zone, as the trades list does (regression: UTC)", () => {
    const { crosshair, tick } = chartTimes('1min', 'en', 'Asia/Shanghai');
    expect(tick(at, TICK.Time as never)).toBe('13:47');
    expect(crosshair(at)).toContain('13:47');
    expect(crosshair(at)).toContain('Dec 4');
  });

  it("an intraday chart's day, month and year marks (where the UTC date changes) carry the hour they fall at in the user's zone; at a local midnight the date alone", () => {
    const utcMidnight = Date.UTC(2026, 10, 19) / 1000;
    const shanghai = chartTimes('5min', 'en', 'Asia/Shanghai');
    expect(shanghai.tick(utcMidnight, TICK.DayOfMonth as never)).toBe('Nov 19, 08:00');
    expect(shanghai.tick(Date.UTC(2027, 0, 1) / 1000, TICK.Year as never)).toBe('Jan 1, 08:00');
    expect(chartTimes('5min', 'en', 'America/Sao_Paulo').tick(utcMidnight, TICK.DayOfMonth as never)).toBe('Nov 18, 21:00');
    const utc = chartTimes('5min', 'en', 'UTC');
    expect(utc.tick(utcMidnight, TICK.DayOfMonth as never)).toBe('Nov 19');
    expect(utc.tick(Date.UTC(2026, 11, 1) / 1000, TICK.Month as never)).toBe('Dec');
    expect(chartTimes('5min', 'ja', 'Asia/Tokyo').tick(utcMidnight, TICK.DayOfMonth as never)).toContain('09:00');
  });

  it('label day, week and month bars by their UTC date (they start at 00:00 UTC)', () => {
    const midnight = Date.UTC(2026, 11, 4) / 1000;
    const { crosshair, tick } = chartTimes('1day', 'en', 'America/New_York');
    expect(crosshair(midnight)).toBe('Dec 4, 2026');
    expect(tick(midnight, TICK.DayOfMonth as never)).toBe('Dec 4');
    expect(tick(midnight, TICK.Year as never)).toBe('2026');
  });
});
