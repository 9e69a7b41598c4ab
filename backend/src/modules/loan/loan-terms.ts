import { money, Money, moneyString, truncate } from '../../infra/money';

/** Coin precision of loan amounts, interest and repayments (USDT-like coins: the coin's display decimals). */
export const DAY_MS = 86_400_000;

/** Interest of a loan: amount × daily rate × days, truncated to the coin's decimals (spec: amounts are truncated). */
export function loanInterest(amount: string, dailyRate: string, days: number, decimals: number): string {
  return moneyString(truncate(money(amount).times(dailyRate).times(days), decimals));
}

/** The whole repayment of a one-time-at-maturity loan: principal + interest. */
export function repayAmount(amount: string, interest: string): string {
  return moneyString(money(amount).plus(interest));
}

/** The due date: `days` whole days after the approval. */
export function dueAt(approvedAt: Date, days: number): Date {
  return new Date(approvedAt.getTime() + days * DAY_MS);
}

/**
 * The due instant as the approval message shows it: date and time to the minute, in UTC
 * ('2025-03-08 02:00 UTC'). The loan is overdue from that instant, not at the end of its date;
 * the seconds are cut, so the time shown is never later than the real one.
 */
export function dueText(due: Date): string {
  return `${due.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * How a repayment splits: interest first (801), the rest principal (800). `interestLeft` is the
 * interest not yet covered by earlier (or in-flight) repayments.
 */
export function splitRepayment(amount: string, interestLeft: string): { interest: string; principal: string } {
  const a: Money = money(amount);
  const i = Money.min(a, Money.max(money(interestLeft), 0));
  return { interest: moneyString(i), principal: moneyString(a.minus(i)) };
}
