import { LedgerCode } from '../ledger/ledger-codes';
import { projectionRows, type AppliedBatch, type ProjectedEntry } from './projector';
import { accountKey } from './sequencer/balances';
import type { MarketParams, PlaceCmd, PostCmd, SeqCommand } from './sequencer/commands';
import { SPOT_FEE_ACCOUNT, Sequencer } from './sequencer/sequencer';

const BTC = 1;
const USDT = 3;
const MARKET: MarketParams = { id: 1, symbol: 'BTC/USDT', baseId: BTC, quoteId: USDT, tickSize: '0.01', lotSize: '0.0001', makerFee: '0.001', takerFee: '0.001' };
const T0 = 1_700_000_000_000;

const deposit = (userId: number, currencyId: number, amount: string): PostCmd => ({
  t: 'post',
  commandId: `dep-${userId}-${currencyId}`,
  refType: 'deposit',
  refId: `${userId}`,
  actor: 'test',
  legs: [
    { ownerType: 'user', ownerId: userId, accountType: 'coin', currencyId, code: LedgerCode.DepositIncrease, available: amount },
    { ownerType: 'system', ownerId: 0, accountType: 'external', currencyId, code: LedgerCode.DepositIncrease, available: `-${amount}` },
  ],
});
/** 1 BTC at 10,000 (1,000,000 ticks, 10,000 lots): 10 USDT of fee from the seller, 0.001 BTC from the buyer. */
const limit = (userId: number, side: 'buy' | 'sell'): PlaceCmd => ({ t: 'place', userId, marketId: 1, side, type: 'limit', price: 1_000_000, qty: 10_000, quoteBudget: 0 });
/** A referral rebate paid out of the house's spot-fee account (as promotion/rebate.service posts it). */
const rebate = (amount: string): PostCmd => ({
  t: 'post',
  commandId: `rebate-${amount}`,
  refType: 'rebate',
  refId: '1',
  actor: 'system',
  legs: [
    { ownerType: 'system', ownerId: 0, accountType: 'spot-fee', currencyId: USDT, code: LedgerCode.ReferralRebate, available: `-${amount}` },
    { ownerType: 'user', ownerId: 3, accountType: 'coin', currencyId: USDT, code: LedgerCode.ReferralRebate, available: amount },
  ],
});

/** Runs each batch's commands through a live sequencer, as the journal's replay does. */
function run(batches: SeqCommand[][]): { seq: Sequencer; applied: AppliedBatch[] } {
  const seq = new Sequencer();
  const applied = batches.map((commands, i) => {
    seq.beginBatch(i + 1, T0 + i);
    return { seq: i + 1, ts: T0 + i, outcomes: commands.map((c) => seq.apply(c)) };
  });
  return { seq, applied };
}

const USDT_FEES = SPOT_FEE_ACCOUNT(USDT);
const feeLines = (entries: ProjectedEntry[]) => entries.filter((e) => accountKey(e.leg) === USDT_FEES);

describe('projectionRows: what a projection transaction writes', () => {
  const setup: SeqCommand[] = [{ t: 'market', market: MARKET }, deposit(1, BTC, '10'), deposit(2, USDT, '100000')];

  it('spot fees are one line per run of trades; a rebate from the fee account ends the run, so balances and running balances follow the sequencer', () => {
    // trade (+10), rebate (−5), trade (+10), trade (+10) in one transaction.
    const { seq, applied } = run([setup, [limit(1, 'sell'), limit(2, 'buy')], [rebate('5'), limit(1, 'sell'), limit(2, 'buy')], [limit(1, 'sell'), limit(2, 'buy')]]);
    const lines = feeLines(projectionRows(applied).entries);
    expect(lines.map((e) => [e.refType, e.refId, e.leg.available, e.leg.availableAfter])).toEqual([
      ['spot-fees', '2', 10n * 10n ** 18n, 10n * 10n ** 18n],
      ['rebate', '1', -5n * 10n ** 18n, 5n * 10n ** 18n],
      ['spot-fees', '3-4', 20n * 10n ** 18n, 25n * 10n ** 18n],
    ]);
    // Each line's balance after is the one before plus its change, and the last is the sequencer's.
    let balance = 0n;
    for (const e of lines) expect((balance += e.leg.available)).toBe(e.leg.availableAfter);
    expect(balance).toBe(seq.balance(USDT_FEES).available);
  });

  it('without a posting from the fee account the trades of the whole transaction make one line per currency', () => {
    const { applied } = run([setup, [limit(1, 'sell'), limit(2, 'buy')], [limit(1, 'sell'), limit(2, 'buy')]]);
    const { entries, trades } = projectionRows(applied);
    expect(trades).toHaveLength(2);
    expect(feeLines(entries).map((e) => [e.refId, e.leg.available])).toEqual([['2-3', 20n * 10n ** 18n]]);
    expect(entries.filter((e) => e.leg.accountType === 'spot-fee').map((e) => e.leg.currencyId).sort()).toEqual([BTC, USDT]);
  });

  it('records each applied posting command by its id and batch (a late retry is answered from them); orders, trades and refusals add none', () => {
    const short = { ...rebate('1000000'), commandId: 'rebate-too-much' }; // more than the fee account holds: refused
    const { applied } = run([setup, [limit(1, 'sell'), limit(2, 'buy'), short], [rebate('5')]]);
    expect(projectionRows(applied).commands).toEqual([
      { id: `dep-1-${BTC}`, seq: 1, ts: T0 },
      { id: `dep-2-${USDT}`, seq: 1, ts: T0 },
      { id: 'rebate-5', seq: 3, ts: T0 + 2 },
    ]);
  });

  it('names the orders its batches made (inserted) apart from the earlier ones they changed (updated); a retried place makes none', () => {
    const again = { ...limit(2, 'buy'), clientOrderId: 'b-1' };
    const { applied } = run([setup, [limit(1, 'sell'), { ...limit(1, 'sell'), qty: 20_000 }], [again, again]]);
    // Orders 1 and 2 rest in batch 2; batch 3's buy (order 3) fills order 1, its retry is a duplicate.
    expect(applied[2].outcomes[1].duplicate).toBe(true);
    const late = projectionRows([applied[2]]);
    expect([...late.orders.keys()].sort()).toEqual([1, 3]);
    expect([...late.created]).toEqual([3]);
    const all = projectionRows(applied.slice(1));
    expect([...all.created].sort()).toEqual([1, 2, 3]);
    expect([...all.orders.values()].map((o) => [o.id, o.status])).toEqual([
      [1, 'completed'],
      [2, 'waiting'],
      [3, 'completed'],
    ]);
  });
});
