import { maskAccount, rebateOf } from './promotion-terms';

describe('promotion terms', () => {
  it('a rebate is fee × ratio truncated to 8 decimals, never rounded up', () => {
    expect(rebateOf('30', '0.2')).toBe('6');
    expect(rebateOf('1.23456789', '0.4')).toBe('0.49382715');
    expect(rebateOf('0.00000004', '0.2')).toBe('0');
    expect(rebateOf('0.999999999999', '0.9')).toBe('0.89999999');
  });

  it('masks phone numbers, e-mail addresses and short names', () => {
    expect(maskAccount('13800138000')).toBe('138****8000');
    // Shorter numbers keep four digits hidden too (regression: "912****4567" showed seven of eight).
    expect(['91234567', '912345678', '9123456789', '912345678901234'].map(maskAccount)).toEqual(['91****67', '91****678', '912****789', '912****1234']);
    expect(maskAccount('ana.lopez@example.com')).toBe('an***@example.com');
    expect(maskAccount('a@x.io')).toBe('a***@x.io');
    expect(maskAccount('bob')).toBe('b***');
  });
});
