import { dueAt, dueText, loanInterest, repayAmount, splitRepayment } from './loan-terms';

describe('loan terms', () => {
  it('interest = amount × daily rate × days, truncated to the coin decimals', () => {
    expect(loanInterest('1000', '0.001', 7, 8)).toBe('7');
    expect(loanInterest('333.33', '0.0015', 15, 2)).toBe('7.49'); // 7.4999250 truncated, never rounded up
    expect(loanInterest('0.01', '0.0001', 7, 8)).toBe('0.000007');
    expect(repayAmount('1000', '7')).toBe('1007');
  });

  it('the due date is whole days after the approval', () => {
    expect(dueAt(new Date('2026-01-01T10:00:00Z'), 30).toISOString()).toBe('2026-01-31T10:00:00.000Z');
  });

  it('the approval message shows the due instant to the minute in UTC, never later than it', () => {
    expect(dueText(dueAt(new Date('2025-03-01T02:00:00Z'), 7))).toBe('2025-03-08 02:00 UTC');
    expect(dueText(new Date('2025-03-08T23:59:59.999Z'))).toBe('2025-03-08 23:59 UTC');
  });

  it('a repayment covers interest first, then principal', () => {
    expect(splitRepayment('5', '7')).toEqual({ interest: '5', principal: '0' });
    expect(splitRepayment('10', '7')).toEqual({ interest: '7', principal: '3' });
    expect(splitRepayment('10', '0')).toEqual({ interest: '0', principal: '10' });
  });
});
