import { depositCommand as deposit } from '../../../test/support/sequencer-commands';
import { LedgerCode } from '../ledger/ledger-codes';
import { projectionRows, type AppliedBatch, type ProjectedEntry } from './projector';
import { accountKey } from './sequencer/balances';
import type { MarketParams, PlaceCmd, PostCmd, SeqCommand } from './sequencer/commands';
import { SPOT_FEE_ACCOUNT, Sequencer } from './sequencer/sequencer';

const BTC = 1;
const USDT = 3;
const MARKET: MarketParams = { id: 1, symbol: 'BTC/USDT', baseId: BTC, quoteId: USDT, tickSize: '0.01', lotSize: '0.0001', makerFee: '0.001', takerFee: '0.001' };
const T0 = 1_700_000_000_000;

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

describe('projectionRows: a trade’s posting is stored with the trade', () => {
  const setup: SeqCommand[] = [{ t: 'market', market: MARKET }, deposit(1, BTC, '10'), deposit(2, USDT, '100000')];
  const coin = (userId: number, currencyId: number) => accountKey({ ownerType: 'user', ownerId: userId, accountType: 'coin', currencyId });
  const units = (v: string) => BigInt(v) * 10n ** 18n;

  it('its trade-account legs are not entries: the row carries each side’s two accounts after it, net of the fee', () => {
    const { seq, applied } = run([setup, [limit(1, 'sell'), limit(2, 'buy')]]);
    const { entries, trades, owned } = projectionRows(applied);
    expect(entries.filter((e) => e.refType === 'trade')).toEqual([]);
    expect(trades).toHaveLength(1);
    const { buyer, seller } = trades[0].ledger;
    // The buyer (user 2, the taker) paid 10,000 USDT from frozen and got 1 BTC less its 0.001 fee;
    // the seller (user 1) paid 1 BTC from frozen and got 10,000 USDT less its 10 USDT fee.
    expect(buyer).toEqual({ pay: [units('90000'), 0n], receive: [units('1') - 10n ** 15n, 0n] });
    expect(seller).toEqual({ pay: [units('9'), 0n], receive: [units('9990'), 0n] });
    for (const [user, currency, after] of [
      [2, USDT, buyer.pay],
      [2, BTC, buyer.receive],
      [1, BTC, seller.pay],
      [1, USDT, seller.receive],
    ] as const) {
      const b = seq.balance(coin(user, currency));
      expect(after).toEqual([b.available, b.frozen]);
      // The balances written for the accounts are the sequencer's too, although no entry carries them.
      expect(owned.get(coin(user, currency))).toMatchObject({ availableAfter: b.available, frozenAfter: b.frozen });
    }
    expect(trades[0]).toMatchObject({ seq: 2, record: { makerUserId: 1, takerUserId: 2, takerSide: 'buy' }, ledger: { base: BTC, quote: USDT } });
  });

  it('takes its place in the ledger’s order: after the entries before it, before those after it, one place each', () => {
    // Order 1 rests (its freeze), order 2 fills it (its freeze, the trade), order 3 rests and is cancelled (freeze, release).
    const { applied } = run([setup, [limit(1, 'sell'), limit(2, 'buy'), limit(2, 'buy'), { t: 'cancel', userId: 2, orderId: 3 }]]);
    const { entries, trades, freezes, releases, slots } = projectionRows(applied);
    const at = (pred: (e: ProjectedEntry) => boolean) => entries.filter(pred).map((e) => e.slot);
    const [freeze1, freeze2, freeze3] = [1, 2, 3].map((id) => freezes.get(id)!.slot);
    const release3 = releases.get(3)!.slot;
    const trade = trades[0].ledger.slot;
    expect(freeze1 < freeze2 && freeze2 < trade && trade < freeze3 && freeze3 < release3).toBe(true);
    // The house's fee lines (written at the end of the run) come after the trade that fed them.
    expect(Math.min(...at((e) => e.refType === 'spot-fees'))).toBeGreaterThan(trade);
    const places = [...entries.map((e) => e.slot), trade, ...[...freezes.values(), ...releases.values()].map((p) => p.slot)];
    expect(places.sort((a, b) => a - b)).toEqual(Array.from({ length: slots }, (_, i) => i));
  });

  it('a taker that sweeps several makers: each trade has its own posting, in the order they traded', () => {
    // Three sellers at three prices (1 BTC each); user 2 buys 3 BTC at the highest: three trades in one command.
    const ask = (userId: number, price: number): PlaceCmd => ({ ...limit(userId, 'sell'), price });
    const sweep: PlaceCmd = { ...limit(2, 'buy'), price: 1_000_200, qty: 30_000 };
    const { seq, applied } = run([
      [...setup, deposit(3, BTC, '10'), deposit(4, BTC, '10')],
      [ask(1, 1_000_000), ask(3, 1_000_100), ask(4, 1_000_200), sweep],
    ]);
    const { trades } = projectionRows(applied);
    expect(trades.map((t) => [t.record.tradeId, t.record.makerUserId, t.record.price])).toEqual([
      [1, 1, 1_000_000],
      [2, 3, 1_000_100],
      [3, 4, 1_000_200],
    ]);
    // Each seller's accounts after its own trade; the buyer's BTC grows trade by trade, its last is the sequencer's.
    for (const [t, seller] of trades.map((t, i) => [t, [1, 3, 4][i]] as const)) {
      expect(t.ledger.seller.pay).toEqual([units('9'), 0n]);
      expect(t.ledger.seller.receive[0]).toBe(seq.balance(coin(seller, USDT)).available);
    }
    expect(trades.map((t) => t.ledger.buyer.receive[0])).toEqual([1n, 2n, 3n].map((n) => n * (units('1') - 10n ** 15n)));
    expect(trades[2].ledger.buyer.receive).toEqual([seq.balance(coin(2, BTC)).available, 0n]);
  });

  it('refuses a trade whose posting is missing (rather than write it with another trade’s ledger)', () => {
    const { applied } = run([setup, [limit(1, 'sell'), limit(2, 'buy')]]);
    const outcome = applied[1].outcomes[1];
    const broken: AppliedBatch = {
      ...applied[1],
      outcomes: [applied[1].outcomes[0], { ...outcome, postings: outcome.postings.filter((p) => p.refType !== 'trade') }],
    };
    expect(() => projectionRows([broken])).toThrow(/has no posting/);
  });

  it('refuses a trade posting that is not in the sequencer’s shape (rather than write a wrong ledger)', () => {
    const { applied } = run([setup, [limit(1, 'sell'), limit(2, 'buy')]]);
    const outcome = applied[1].outcomes[1];
    const posting = outcome.postings.find((p) => p.refType === 'trade')!;
    const swapped = { ...posting, legs: [posting.legs[1], posting.legs[0], ...posting.legs.slice(2)] };
    const broken: AppliedBatch = { ...applied[1], outcomes: [applied[1].outcomes[0], { ...outcome, postings: outcome.postings.map((p) => (p === posting ? swapped : p)) }] };
    expect(() => projectionRows([broken])).toThrow(/not in the sequencer's shape/);
  });
});

describe('projectionRows: a spot order’s freeze and release are stored with the order', () => {
  const setup: SeqCommand[] = [{ t: 'market', market: MARKET }, deposit(1, BTC, '10'), deposit(2, USDT, '100000')];
  const coin = (userId: number, currencyId: number) => accountKey({ ownerType: 'user', ownerId: userId, accountType: 'coin', currencyId });
  const units = (v: string) => BigInt(v) * 10n ** 18n;

  it('they are not entries: each order carries its freeze (901) and release (902), with the account after each', () => {
    // Order 1 (sell 1 BTC) rests; order 2 (buy 2 BTC at 10,000) takes it and rests with 1 BTC's worth; order 2 is cancelled.
    const { seq, applied } = run([setup, [limit(1, 'sell'), { ...limit(2, 'buy'), qty: 20_000 }], [{ t: 'cancel', userId: 2, orderId: 2 }]]);
    const { entries, freezes, releases, owned } = projectionRows(applied);
    expect(entries.filter((e) => e.refType === 'order')).toEqual([]);
    expect([...freezes.keys()]).toEqual([1, 2]);
    expect([...releases.keys()]).toEqual([2]);
    expect(freezes.get(1)).toMatchObject({ seq: 2, leg: { ownerId: 1, currencyId: BTC, code: LedgerCode.Freeze, available: -units('1'), frozen: units('1'), availableAfter: units('9'), frozenAfter: units('1') } });
    expect(freezes.get(2)).toMatchObject({ seq: 2, leg: { ownerId: 2, currencyId: USDT, available: -units('20000'), frozen: units('20000'), availableAfter: units('80000'), frozenAfter: units('20000') } });
    // The fill paid 10,000 from frozen; the release gives back the other 10,000.
    expect(releases.get(2)).toMatchObject({ seq: 3, leg: { ownerId: 2, currencyId: USDT, code: LedgerCode.Unfreeze, available: units('10000'), frozen: -units('10000'), availableAfter: units('90000'), frozenAfter: 0n } });
    const b = seq.balance(coin(2, USDT));
    expect(owned.get(coin(2, USDT))).toMatchObject({ availableAfter: b.available, frozenAfter: b.frozen });
  });

  it('a posting command about an order (a service’s, with a command id) stays an entry', () => {
    const post: PostCmd = { ...deposit(1, USDT, '5'), commandId: 'order-like', refType: 'order', refId: '1' };
    const { applied } = run([setup, [post]]);
    const { entries, freezes, releases } = projectionRows(applied);
    expect(entries.filter((e) => e.refType === 'order').map((e) => e.leg.code)).toEqual([LedgerCode.DepositIncrease, LedgerCode.DepositIncrease]);
    expect(freezes.size + releases.size).toBe(0);
  });
});
