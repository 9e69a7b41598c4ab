import { randomUUID } from 'node:crypto';
import { EngineHost } from '../../src/modules/engine/engine-host.service';
import { coinLeg, systemLeg, TradeAccountCommands } from '../../src/modules/engine/trade-account-commands';
import { LedgerCode } from '../../src/modules/ledger/ledger-codes';
import { LedgerService } from '../../src/modules/ledger/ledger.service';
import { registerByEmail, setFundPassword } from './accounts';
import { TestApp } from './test-app';

/** Credits a user's trade account as an approved deposit would (code 200 against the external account), through the sequencer. */
export async function deposit(t: TestApp, userId: number, currencyId: number, amount: string): Promise<void> {
  const id = randomUUID();
  await t.app.get(TradeAccountCommands).postOrFail({
    commandId: `test-deposit:${id}`,
    refType: 'deposit',
    refId: id,
    actor: 'test',
    legs: [coinLeg(userId, currencyId, LedgerCode.DepositIncrease, amount), systemLeg('external', currencyId, LedgerCode.DepositIncrease, `-${amount}`)],
  });
  await t.app.get(EngineHost).settledFor(userId); // as the approval's answer: the credit is in the read tables
}

/** A user's trade account as the API shows it: after the projection of everything of theirs already answered. */
export async function coinBalance(t: TestApp, userId: number, currencyId: number): Promise<{ available: string; frozen: string }> {
  await t.app.get(EngineHost).settledFor(userId);
  const rows = await t.app.get(LedgerService).balancesOf('user', userId);
  const b = rows.find((r) => r.accountType === 'coin' && r.currencyId === currencyId);
  return { available: b?.available ?? '0', frozen: b?.frozen ?? '0' };
}

/** A new user ready to trade spot: registered, with a fund password, and `amount` of the currency credited to the trade account. */
export async function spotTrader(t: TestApp, currencyId: number, amount: string) {
  const u = await registerByEmail(t);
  await setFundPassword(t, u);
  await deposit(t, u.user.id, currencyId, amount);
  return u;
}
