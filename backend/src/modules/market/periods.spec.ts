import { bucketStart } from './periods';

describe('candle buckets', () => {
  const ts = Date.UTC(2026, 10, 19, 13, 47, 31); // Thursday 19 Nov 2026
  it.each([
    ['1min', Date.UTC(2026, 10, 19, 13, 47)],
    ['5min', Date.UTC(2026, 10, 19, 13, 45)],
    ['30min', Date.UTC(2026, 10, 19, 13, 30)],
    ['60min', Date.UTC(2026, 10, 19, 13)],
    ['1day', Date.UTC(2026, 10, 19)],
    ['1week', Date.UTC(2026, 10, 16)],
    ['1mon', Date.UTC(2026, 10, 1)],
  ] as const)('%s', (period, start) => expect(bucketStart(period, ts)).toBe(start));

  it('a Sunday belongs to the week that began the Monday before', () => {
    expect(bucketStart('1week', Date.UTC(2026, 10, 22, 23, 59))).toBe(Date.UTC(2026, 10, 16));
  });
});
