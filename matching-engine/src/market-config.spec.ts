import { createMarket, formatScaled, parseDecimal } from './market-config';

describe('market config: decimal <-> ticks/lots', () => {
  const btc = createMarket({ symbol: 'BTC/USDT', tickSize: '0.01', lotSize: '0.0001', minQty: '0.00015' });

  it('converts prices to ticks, truncating', () => {
    expect(btc.priceToTicks('30000')).toBe(3_000_000);
    expect(btc.priceToTicks('30000.129')).toBe(3_000_012);
    expect(btc.priceToTicks('0.009')).toBe(0);
    expect(btc.ticksToPrice(3_000_012)).toBe('30000.12');
    expect(btc.ticksToPrice(5)).toBe('0.05');
  });

  it('converts a price to ticks exactly only when it lies on the tick grid', () => {
    expect(btc.priceToTicksExact('30000.12')).toBe(3_000_012);
    expect(btc.priceToTicksExact('30000.1200000000000000000000')).toBe(3_000_012);
    expect(btc.priceToTicksExact('0')).toBe(0);
    expect(btc.priceToTicksExact('30000.129')).toBeUndefined();
    expect(btc.priceToTicksExact('0.009')).toBeUndefined();
    expect(btc.priceToTicksExact('30000.120000000000000000001')).toBeUndefined();
    expect(btc.priceToTicksExact('1e3')).toBeUndefined();
    const half = createMarket({ symbol: 'Y', tickSize: '0.5', lotSize: '1', minQty: '1' });
    expect(half.priceToTicksExact('10.5')).toBe(21);
    expect(half.priceToTicksExact('10.74')).toBeUndefined();
  });

  it('formats steps the same in a double as in BigInt, up to and past 2^53', () => {
    const fine = createMarket({ symbol: 'Z', tickSize: '0.000000000000000007', lotSize: '3', minQty: '3' });
    const big = BigInt(Number.MAX_SAFE_INTEGER);
    for (const [m, n] of [
      [btc, 0],
      [btc, 3_000_012],
      [btc, Number.MAX_SAFE_INTEGER],
      [fine, 1],
      [fine, 1_286_742_750_677_284], // 7 × this just below 2^53
      [fine, 1_286_742_750_677_285], // just above
      [fine, Number.MAX_SAFE_INTEGER],
    ] as const) {
      const tick = m === btc ? 1n : 7n;
      expect(m.ticksToPrice(n)).toBe(formatScaled(BigInt(n) * tick, m === btc ? 2 : 18));
    }
    expect(btc.ticksToPrice(Number.MAX_SAFE_INTEGER)).toBe(`${(big / 100n).toString()}.${(big % 100n).toString().padStart(2, '0')}`);
    expect(fine.lotsToQty(5)).toBe('15');
  });

  it('converts quantities to lots, truncating', () => {
    expect(btc.qtyToLots('1.23456')).toBe(12_345);
    expect(btc.lotsToQty(12_345)).toBe('1.2345');
    expect(btc.lotsToQty(0)).toBe('0.0000');
  });

  it('rounds minQty up to whole lots', () => {
    expect(btc.minLots).toBe(2);
    expect(createMarket({ symbol: 'X', tickSize: '1', lotSize: '0.5', minQty: '1' }).minLots).toBe(2);
    expect(createMarket({ symbol: 'X', tickSize: '1', lotSize: '1', minQty: '0' }).minLots).toBe(1);
  });

  it('measures quote amounts in ticks x lots', () => {
    // 0.01 * 0.0001 = 0.000001 USDT per unit.
    expect(btc.quoteToUnits('100.5')).toBe(100_500_000);
    expect(btc.unitsToQuote(3_000_012 * 12_345)).toBe('37035.148140'); // 30000.12 x 1.2345;
    expect(btc.quoteToUnits('0.0000009')).toBe(0);
  });

  it('handles steps that are not powers of ten', () => {
    const m = createMarket({ symbol: 'Y', tickSize: '0.5', lotSize: '25', minQty: '25' });
    expect(m.priceToTicks('10.74')).toBe(21);
    expect(m.ticksToPrice(21)).toBe('10.5');
    expect(m.qtyToLots('99')).toBe(3);
    expect(m.lotsToQty(3)).toBe('75');
  });

  it('never uses floats: exact beyond double precision', () => {
    const m = createMarket({ symbol: 'Z', tickSize: '0.00000001', lotSize: '1', minQty: '1' });
    expect(m.priceToTicks('90071992.54740991')).toBe(9_007_199_254_740_991);
    expect(m.priceToTicks('90071992.54740992')).toBeUndefined();
    expect(m.ticksToPrice(9_007_199_254_740_991)).toBe('90071992.54740991');
  });

  it('returns undefined for anything that is not a plain non-negative decimal', () => {
    for (const bad of ['', '-1', '1e3', ' 1', '1.', '.5', 'abc', '1,5', '0x10']) expect(btc.priceToTicks(bad)).toBeUndefined();
    expect(btc.qtyToLots(undefined as unknown as string)).toBeUndefined();
  });

  it('refuses to format a non-integer count', () => {
    expect(() => btc.ticksToPrice(1.5)).toThrow(RangeError);
    expect(() => btc.lotsToQty(-1)).toThrow(RangeError);
  });

  it('rejects a malformed config', () => {
    expect(() => createMarket({ symbol: 'B', tickSize: '0', lotSize: '1', minQty: '1' })).toThrow(/tickSize/);
    expect(() => createMarket({ symbol: 'B', tickSize: '1', lotSize: 'x', minQty: '1' })).toThrow(/lotSize/);
  });

  it('parses and formats scaled decimals', () => {
    expect(parseDecimal('012.340')).toEqual({ mantissa: 12340n, scale: 3 });
    expect(formatScaled(5n, 3)).toBe('0.005');
    expect(formatScaled(12340n, 0)).toBe('12340');
  });
});
