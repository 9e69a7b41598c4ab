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

  it('label day, week and month bars by their UTC date (they start at 00:00 UTC)', () => {
    const midnight = Date.UTC(2026, 11, 4) / 1000;
    const { crosshair, tick } = chartTimes('1day', 'en', 'America/New_York');
    expect(crosshair(midnight)).toBe('Dec 4, 2026');
    expect(tick(midnight, TICK.DayOfMonth as never)).toBe('Dec 4');
    expect(tick(midnight, TICK.Year as never)).toBe('2026');
  });
});
