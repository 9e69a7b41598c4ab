import { preview } from './lever-form';

describe('contract margin and fee preview', () => {
  const deal = { lot_value: '100', fee_rate: '0.001' };
  it('follows the worked example: 10 lots ×10 → margin 100, fee 1', () => {
    expect(preview('10', deal, 10)).toEqual({ margin: '100.00000000', fee: '1.00000000' });
  });
  it('truncates instead of rounding', () => {
    expect(preview('1', deal, 3).margin).toBe('33.33333333');
  });
  it('shows nothing for lots that are not a whole number ≥ 1', () => {
    for (const lots of ['', '0', '1.5', '-2', 'x']) expect(preview(lots, deal, 10)).toEqual({ margin: '', fee: '' });
  });
});
