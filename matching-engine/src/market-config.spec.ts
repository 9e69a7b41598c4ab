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

  it('reads every price and quantity as the BigInt rule does, on and off the fast path (random decimals)', () => {
    // The rule, in BigInt: floor(value / step), undefined past 2^53 - 1 or (exact) off the grid.
    const reference = (value: string, step: string, exact: boolean): number | undefined => {
      const v = parseDecimal(value);
      const s = parseDecimal(step)!;
      if (v === undefined) return undefined;
      const num = v.mantissa * 10n ** BigInt(s.scale);
      const den = s.mantissa * 10n ** BigInt(v.scale);
      if (exact && num % den !== 0n) return undefined;
      const q = num / den;
      return q <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(q) : undefined;
    };
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    const digits = (n: number) => Array.from({ length: n }, () => rand(10)).join('');
    const value = (): string => {
      switch (rand(12)) {
        case 0:
          return ['', '.', '1.', '.5', '1.2.3', '-1', '+1', '1e3', ' 1', '1 ', '١', '0x10', 'NaN'][rand(13)];
        case 1:
          return `${digits(1 + rand(20))}.${digits(1 + rand(22))}`; // past 15 digits: the BigInt path
        case 2: {
          // Near 2^52, where the fast path ends.
          const whole = String(2 ** 52 - 1 - rand(1000));
          return rand(2) ? whole : `${whole.slice(0, 10)}.${whole.slice(10)}`;
        }
        default:
          return rand(3) ? `${digits(1 + rand(7))}.${digits(1 + rand(8))}` : digits(1 + rand(15));
      }
    };
    const steps = ['0.01', '0.0001', '0.5', '0.00000001', '1', '25', '0.000000000000000001', '0.3', '7', '0.000000000000001'];
    const wrong: string[] = [];
    let checked = 0;
    for (const step of steps) {
      const m = createMarket({ symbol: 'X/Y', tickSize: step, lotSize: step, minQty: step });
      for (let i = 0; i < 4000; i++, checked++) {
        const v = value();
        const [floor, exact] = [reference(v, step, false), reference(v, step, true)];
        if (m.priceToTicks(v) !== floor || m.qtyToLots(v) !== floor || m.priceToTicksExact(v) !== exact)
          wrong.push(`${v} / ${step}: ${m.priceToTicks(v)}, ${m.priceToTicksExact(v)} (expected ${floor}, ${exact})`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBe(40_000);
    // Quotients just below a whole number.
    const fine = createMarket({ symbol: 'X/Y', tickSize: '3', lotSize: '1', minQty: '1' });
    expect(fine.priceToTicks(String(3 * 1_000_000_000_000 - 1))).toBe(999_999_999_999);
    expect(fine.priceToTicks('4503599627370495')).toBe(Number(4503599627370495n / 3n));
  });
});
