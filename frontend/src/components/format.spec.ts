import { amountText, compact, direction, priceDecimals, signedPercent, truncate } from './format';

describe('display formatting truncates decimal strings', () => {
  it('never rounds', () => {
    expect(truncate('91234.56789', 2)).toBe('91,234.56');
    expect(truncate('0.999999', 4)).toBe('0.9999');
    expect(truncate('1.5', 0)).toBe('1');
    expect(truncate('-0.001', 2)).toBe('0.00');
    expect(truncate('-12.349', 2)).toBe('-12.34');
    expect(truncate('7', 3)).toBe('7.000');
    expect(truncate('123456789012345678.123456789', 8, false)).toBe('123456789012345678.12345678');
  });

  it('shows amounts grouped, truncated to 8 decimals, without trailing zeros', () => {
    expect(amountText('10000.00000000')).toBe('10,000');
    expect(amountText('-99.26490000')).toBe('-99.2649');
    expect(amountText('8350.7841')).toBe('8,350.7841');
    expect(amountText('0.123456789')).toBe('0.12345678');
    expect(amountText('100', 0)).toBe('100');
    expect(amountText('-0.000000001')).toBe('0');
    expect(amountText(null)).toBe('--');
  });

  it('shows -- for missing or invalid values', () => {
    expect(truncate(null, 2)).toBe('--');
    expect(truncate('abc', 2)).toBe('--');
  });

  it('picks decimals by size and compacts volumes', () => {
    expect(priceDecimals('91000.5')).toBe(2);
    expect(priceDecimals('3.1')).toBe(4);
    expect(priceDecimals('0.000123')).toBe(7);
    expect(compact('12345678.9')).toBe('12.34M');
    expect(compact('999.999')).toBe('999.99');
    expect(compact('1999')).toBe('1.99K');
  });

  it('signs changes and never relies on colour alone', () => {
    expect(direction('1.20')).toBe('up');
    expect(direction('-0.01')).toBe('down');
    expect(direction('0.00')).toBe('flat');
    expect(signedPercent('1.239')).toBe('+1.23%');
    expect(signedPercent('-0.40')).toBe('−0.40%');
    expect(signedPercent('0')).toBe('0.00%');
  });
});
