import { LedgerCode } from '../../src/modules/ledger/ledger-codes';
import type { PostCmd } from '../../src/modules/engine/sequencer/commands';

/** A deposit as the sequencer takes it: `amount` from `external` into the user's trade account (command and ref id `id`, else `dep-<user>-<currency>` and `<user>`). */
export const depositCommand = (userId: number, currencyId: number, amount: string, id?: string): PostCmd => ({
  t: 'post',
  commandId: id ?? `dep-${userId}-${currencyId}`,
  refType: 'deposit',
  refId: id ?? `${userId}`,
  actor: 'test',
  legs: [
    { ownerType: 'user', ownerId: userId, accountType: 'coin', currencyId, code: LedgerCode.DepositIncrease, available: amount },
    { ownerType: 'system', ownerId: 0, accountType: 'external', currencyId, code: LedgerCode.DepositIncrease, available: `-${amount}` },
  ],
});
