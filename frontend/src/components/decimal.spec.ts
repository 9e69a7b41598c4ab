import { cmp, div, isAmount, mul, percentOf, toStep, typedDecimal } from './decimal';

describe('decimal-string helpers (truncated, never floats)', () => {
  it('multiplies and divides without float error, truncating', () => {
    expect(mul('0.1', '0.2', 8)).toBe('0.02000000');
    expect(mul('91234.56', '0.00123', 2)).toBe('112.21');
    expect(div('100', '3', 4)).toBe('33.3333');
    expect(div('1', '0', 2)).toBe('0.00');
  });
  it('takes a share of a balance and snaps to a lot size, always down', () => {
    expect(percentOf('1.00019999', 25, 8)).toBe('0.25004999');
    expect(toStep('0.123456', '0.0001')).toBe('0.1234');
    expect(toStep('12.999', '1')).toBe('12');
  });
  it('compares and validates amounts', () => {
    expect(cmp('10.00', '9.999')).toBe(1);
    expect(cmp('1', '1.0')).toBe(0);
    expect(isAmount('1.5')).toBe(true);
    expect(isAmount('1.')).toBe(false);
    expect(isAmount('-1')).toBe(false);
  });

  it('reads a typed amount with a decimal comma or stray spaces as the API takes it', () => {
    const typed: string[] = [];
    const onChange = typedDecimal((v) => typed.push(v));
    for (const v of ['10,5', ' 50 ', '0,0001', '12']) onChange(v);
    expect(typed).toEqual(['10.5', '50', '0.0001', '12']);
    expect(typed.every(isAmount)).toBe(true);
  });

  it('drops commas that group thousands as the app shows amounts: a pasted "95,000" is 95000, not 95 (regression: it became 95.000)', () => {
    const typed: string[] = [];
    const onChange = typedDecimal((v) => typed.push(v));
    for (const v of ['95,000', '10,000.5', '1,234,567', '0,500', '1,5', '12,34']) onChange(v);
    expect(typed).toEqual(['95000', '10000.5', '1234567', '0.500', '1.5', '12.34']);
  });
});
