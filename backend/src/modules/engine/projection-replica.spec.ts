import { depositCommand as deposit } from '../../../test/support/sequencer-commands';
import type { TradeTick } from './engine-bus';
import { applyBatch, BlockedWatch, marketLookup } from './projection-replica';
import { type AppliedBatch, type ProjectedTrade, projectionRows, Projector } from './projector';
import type { MarketParams, PlaceCmd } from './sequencer/commands';
import { Sequencer } from './sequencer/sequencer';

describe('BlockedWatch: when a projection blocked on the watermark row is reported', () => {
  it('first after firstMs, then every everyMs, with the time blocked so far', () => {
    const w = new BlockedWatch(1000, 10_000);
    expect(w.blocked(5000)).toBeUndefined();
    expect(w.blocked(5200)).toBeUndefined();
    expect(w.blocked(6000)).toBe(1000);
    expect(w.blocked(6200)).toBeUndefined();
    expect(w.blocked(15_999)).toBeUndefined();
    expect(w.blocked(16_000)).toBe(11_000);
  });

  it('starts again after a projection went through', () => {
    const w = new BlockedWatch(1000, 10_000);
    w.blocked(0);
    expect(w.blocked(1500)).toBe(1500);
    w.clear();
    expect(w.blocked(2000)).toBeUndefined();
    expect(w.blocked(2999)).toBeUndefined();
    expect(w.blocked(3000)).toBe(1000);
  });
});

describe('applyBatch and the projector: prices in the units the journal had when each command was applied', () => {
  const BTC = 1;
  const USDT = 3;
  const MARKET: MarketParams = { id: 1, symbol: 'BTC/USDT', baseId: BTC, quoteId: USDT, tickSize: '0.01', lotSize: '0.0001', makerFee: '0', takerFee: '0' };
  /** 1 BTC at `price` ticks. */
  const limit = (userId: number, side: 'buy' | 'sell', price: number): PlaceCmd => ({
    t: 'place',
    userId,
    marketId: 1,
    side,
    type: 'limit',
    price,
    qty: 10_000,
    quoteBudget: 0,
  });
  /** The projector's rows of these batches (its private steps, as load-tests/bench-projection-rows runs them). */
  type Rows = {
    orderRows(...args: unknown[]): [string, string[]];
    tradeRows(trades: ProjectedTrade[], ids: number[]): [string, Map<number, TradeTick[]>];
  };
  function written(projector: Projector, batches: AppliedBatch[]) {
    const r = projectionRows(batches);
    const ids = Array.from({ length: r.slots }, (_, i) => 1 + 8 * i);
    const rows = projector as unknown as Rows;
    const [made] = rows.orderRows(r.orders, r.created, r.freezes, r.releases, ids, r.placedIn);
    const [, ticks] = rows.tradeRows(r.trades, ids);
    return {
      orderPrices: made
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[5]),
      tradePrices: (ticks.get(1) ?? []).map((t) => t.price),
    };
  }

  it('a trade of 600,000 ticks after a market command to tick 0.1 reads 60,000, though the projector started with tick 0.01; one before it, in the same batch, reads its own ticks', () => {
    const seqr = new Sequencer();
    const batches = [
      applyBatch(seqr, 1, 1, [{ t: 'market', market: MARKET }, deposit(1, BTC, '10'), deposit(2, USDT, '1000000')]),
      // 60,000 at tick 0.01 (6,000,000 ticks) trades and leaves the book empty; then the tick becomes 0.1 (the journal's market command).
      applyBatch(seqr, 2, 2, [limit(1, 'sell', 6_000_000), limit(2, 'buy', 6_000_000), { t: 'market', market: { ...MARKET, tickSize: '0.1' }, v: 2 }]),
      applyBatch(seqr, 3, 3, [limit(1, 'sell', 600_000), limit(2, 'buy', 600_000)]),
    ];
    expect(batches[1].outcomes.map((o) => o.code)).toEqual(['OK', 'OK', 'OK']);
    expect(seqr.market(1)!.tickSize).toBe('0.1');
    // As the projector thread starts: the markets table's rows as they were (tick 0.01).
    const projector = new Projector(undefined as never, marketLookup([{ id: 1, symbol: 'BTC/USDT', tickSize: '0.01', lotSize: '0.0001', minQty: '0.0001' }]));
    const { orderPrices, tradePrices } = written(projector, batches);
    expect(tradePrices).toEqual(['60000.00', '60000.0']);
    expect(orderPrices).toEqual(['60000.00', '60000.00', '60000.0', '60000.0']);
    // The last batch projected on its own (after a restart) reads the same.
    expect(written(projector, [batches[2]]).tradePrices).toEqual(['60000.0']);
  });

  it('marketLookup (batches that carry no units): the journal’s units as the replica’s sequencer has applied them, else the ones it started with', () => {
    const seqr = new Sequencer();
    const lookup = marketLookup([{ id: 1, symbol: 'BTC/USDT', tickSize: '0.01', lotSize: '0.0001', minQty: '0.0001' }], (id) => seqr.market(id));
    expect(Number(lookup.byIdOrUndefined(1)!.engine.ticksToPrice(600_000))).toBe(6000);
    applyBatch(seqr, 1, 1, [{ t: 'market', market: { ...MARKET, tickSize: '0.1' } }]);
    expect(Number(lookup.byIdOrUndefined(1)!.engine.ticksToPrice(600_000))).toBe(60000);
    expect(lookup.byIdOrUndefined(2)).toBeUndefined();
  });
});
