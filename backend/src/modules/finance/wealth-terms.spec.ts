import { money } from '../../infra/money';
import { interestForDay, interestOf, listingStatus, penaltyOf, ratesOf } from './wealth-terms';

const fixed = (days: number, rate: string, rateMode: 'daily' | 'total') => ({ kind: 'fixed' as const, days, rate, rateMode, accrualMin: '0' });

describe('wealth terms (spec §9)', () => {
  it('daily yield = principal × daily rate, truncated', () => {
    expect(interestOf(fixed(15, '0.004', 'daily'), '1000')).toEqual({ daily: '4', total: '60' });
    expect(interestOf(fixed(15, '0.004', 'daily'), '1234.56789')).toEqual({ daily: '4.93827156', total: '74.0740734' });
  });

  it('a total yield pays exactly principal × yield over the term (the last day takes the remainder)', () => {
    const o = { kind: 'fixed' as const, days: 30, ...(({ daily, total }) => ({ dailyInterest: daily, totalInterest: total }))(interestOf(fixed(30, '0.1366', 'total'), '1000')) };
    expect(o).toMatchObject({ dailyInterest: '4.55333333', totalInterest: '136.6' });
    let sum = money(0);
    for (let k = 0; k < 30; k++) sum = sum.plus(interestForDay(o, k));
    expect(sum.toFixed()).toBe('136.6');
    expect(interestForDay(o, 29)).toBe('4.55333343');
    expect(ratesOf(fixed(7, '0.0297', 'total'))).toEqual({ daily_rate: '0.0042428571', total_rate: '0.0297' });
  });

  it('the flexible fund earns only from 10,000', () => {
    const flex = { kind: 'flexible' as const, days: 0, rate: '0.0042', rateMode: 'daily' as const, accrualMin: '10000' };
    expect(interestOf(flex, '9999.99').daily).toBe('0');
    expect(interestOf(flex, '10000').daily).toBe('42');
  });

  it('penalty: 0.4 %, 3 days remaining, 1,000 → 12; the tip is 1.5 × a day; never above the principal', () => {
    const base = { amount: '1000', days: 15, paidDays: 12, dailyInterest: '4', penaltyRatio: '0.004', penaltyMultiple: '1.5' };
    expect(penaltyOf({ ...base, penaltyMode: 'ratio' })).toBe('12');
    expect(penaltyOf({ ...base, penaltyMode: 'tip' })).toBe('6');
    expect(penaltyOf({ ...base, penaltyMode: 'none' })).toBe('0');
    expect(penaltyOf({ ...base, paidDays: 0, penaltyRatio: '0.1', penaltyMode: 'ratio' })).toBe('1000');
  });

  it('listing states', () => {
    const now = new Date('2026-01-10T00:00:00Z');
    const p = { enabled: true, saleStart: new Date('2026-01-01'), saleEnd: null, capacity: '1000', sold: '0', minAmount: '10' };
    expect(listingStatus(p, now)).toBe('in_progress');
    expect(listingStatus({ ...p, sold: '900' }, now)).toBe('rush');
    expect(listingStatus({ ...p, sold: '995' }, now)).toBe('sold_out');
    expect(listingStatus({ ...p, saleStart: new Date('2026-02-01') }, now)).toBe('soon');
    expect(listingStatus({ ...p, enabled: false }, now)).toBe('ended');
  });
});
