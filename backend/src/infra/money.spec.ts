import { isDecimalString, money, moneyString, truncate } from './money';

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
});
