import { createMarket } from '@kestrel/matching-engine';
import type { TradeRecord } from '../engine/sequencer/commands';
import { PendingTrades } from './pending-trades';

/** The feed's compact queue of a market's trades gives the `trades` topic the same data the records would. */
describe('PendingTrades', () => {
  const btc = createMarket({ symbol: 'BTC/USDT', tickSize: '0.01', lotSize: '0.0001', minQty: '0.0001' });
  const UNIT = 10n ** 18n;
  const record = (tradeId: number, ticks: number, qty: bigint, takerSide: 'buy' | 'sell', ts: number): TradeRecord => ({
    marketId: 1,
    tradeId,
    price: ticks,
    lots: Number((qty * 10_000n) / UNIT),
    qty,
    quote: 0n,
    takerSide,
    makerOrderId: 1,
    takerOrderId: 2,
    makerUserId: 3,
    takerUserId: 4,
    makerFee: 0n,
    takerFee: 0n,
    ts,
  });
  const ts = 1_796_000_000_123;
  const queued = (records: TradeRecord[]) => {
    const p = new PendingTrades();
    for (const r of records) p.push(r);
    return p;
  };

  it('holds each trade as its id, price, quantity, side and time', () => {
    const p = queued([record(7, 6_000_012, UNIT / 1000n, 'buy', ts), record(8, 6_000_000, 15n * UNIT + UNIT / 2n, 'sell', ts + 1)]);
    expect(p.length).toBe(2);
    expect(p.data(btc)).toEqual([
      { trade_id: '7', price: '60000.12', quantity: '0.001', side: 'buy', time: ts },
      { trade_id: '8', price: '60000', quantity: '15.5', side: 'sell', time: ts + 1 },
    ]);
  });

  it('gives the newest `last` trades, oldest first', () => {
    const p = queued([1, 2, 3, 4].map((id) => record(id, 100 + id, UNIT, 'buy', ts + id)));
    expect(p.data(btc, 2).map((t) => [t.trade_id, t.price, t.time])).toEqual([
      ['3', '1.03', ts + 3],
      ['4', '1.04', ts + 4],
    ]);
    expect(p.data(btc, 10)).toHaveLength(4);
    expect(new PendingTrades().data(btc)).toEqual([]);
  });

  it('queues a failed cycle’s trades again ahead of the newer ones', () => {
    const failed = queued([record(1, 100, UNIT, 'buy', ts), record(2, 101, UNIT, 'sell', ts)]);
    const newer = queued([record(3, 102, 2n * UNIT, 'buy', ts + 5)]);
    const merged = failed.before(newer);
    expect(merged.data(btc).map((t) => [t.trade_id, t.side, t.quantity])).toEqual([
      ['1', 'buy', '1'],
      ['2', 'sell', '1'],
      ['3', 'buy', '2'],
    ]);
    expect(queued([record(9, 100, UNIT, 'sell', ts)]).before(undefined).length).toBe(1);
  });
});
