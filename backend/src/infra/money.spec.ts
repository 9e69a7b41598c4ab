import { isDecimalString, money, Money, moneyString, trimDecimal, truncate, UNIT, units, unitsDiv, unitsString, unitsTimes } from './money';

describe('money', () => {
  it('truncates instead of rounding', () => {
    expect(truncate('1.999999', 2)).toBe('1.99');
    expect(truncate('-1.999', 2)).toBe('-1.99');
    expect(moneyString('0.1234567890123456789999')).toBe('0.123456789012345678');
  });

  it('adds exactly where floats do not', () => {
    expect(money('0.1').plus('0.2').toString()).toBe('0.3');
    expect(moneyString('100.000000000000000000')).toBe('100');
  });

  it('accepts only plain decimal strings', () => {
    expect(isDecimalString('12.5')).toBe(true);
    expect(isDecimalString('1e5')).toBe(false);
    expect(isDecimalString('0.0000000000000000001')).toBe(false);
    expect(isDecimalString('NaN')).toBe(false);
  });

  describe('units (fixed point)', () => {
    it('round-trips the canonical strings', () => {
      for (const v of ['0', '1', '-1', '0.5', '-0.000000000000000001', '123456789012345678.123456789012345678', '100', '0.1'])
        expect(unitsString(units(v))).toBe(moneyString(v));
      expect(unitsString(units('100.000000000000000000'))).toBe('100');
      expect(unitsString(units('-0'))).toBe('0');
      expect(units('5.')).toBe(5n * 10n ** 18n);
    });

    it('trims an exact decimal as moneyString does', () => {
      for (const v of ['0', '0.0000', '30000.12', '30000.10', '10.5000', '100', '0.000000000000000001', '120.000000000000000000', '7.'])
        expect(trimDecimal(v)).toBe(moneyString(v));
    });

    it('formats every magnitude and every trailing-zero count as Money does', () => {
      for (let exp = 0; exp <= 36; exp++)
        for (const lead of [1n, 7n, 10n, 120n, 1001n, 999999999n]) {
          for (const v of [lead * 10n ** BigInt(exp), -(lead * 10n ** BigInt(exp)), lead * 10n ** BigInt(exp) + 1n]) {
            expect(unitsString(v)).toBe(new Money(v.toString()).div(UNIT.toString()).toString());
          }
        }
    });

    it('refuses what is not a plain decimal of at most 18 places', () => {
      for (const v of ['', '-', '1e5', ' 1', '0x10', '0.0000000000000000001', 'NaN', '1.2.3']) expect(() => units(v)).toThrow(/not a decimal/);
    });

    it('agrees with Money on random sums and truncated products', () => {
      let seed = 7;
      const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
      const decimal = () =>
        `${rnd(2) ? '-' : ''}${rnd(1_000_000)}.${String(rnd(1_000_000_000)).padStart(9, '0')}${String(rnd(1_000_000_000)).padStart(9, '0')}`;
      for (let i = 0; i < 2000; i++) {
        const [a, b] = [decimal(), decimal()];
        expect(unitsString(units(a) + units(b))).toBe(moneyString(money(a).plus(b)));
        expect(unitsString(units(a) - units(b))).toBe(moneyString(money(a).minus(b)));
        const places = rnd(19);
        expect(unitsString(unitsTimes(units(a), units(b), places))).toBe(truncate(money(a).times(b), places));
        if (units(b) !== 0n) expect(unitsString(unitsDiv(units(a), units(b)))).toBe(moneyString(money(a).div(b)));
      }
    });
  });
});
