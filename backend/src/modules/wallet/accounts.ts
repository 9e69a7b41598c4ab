import type { UserAccountType } from '../ledger/ledger-codes';

/**
 * The four user accounts (spec §3) and what they hold. The trade (coin) account holds every
 * coin; the option, contract and trust accounts are margined and paid in USDT only.
 */
export const ACCOUNT_CURRENCIES: Record<UserAccountType, 'all' | number[]> = {
  coin: 'all',
  option: [3],
  lever: [3],
  trust: [3],
};

export function accountHolds(account: UserAccountType, currencyId: number): boolean {
  const held = ACCOUNT_CURRENCIES[account];
  return held === 'all' || held.includes(currencyId);
}
