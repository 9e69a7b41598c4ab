import { act, renderHook, waitFor } from '@testing-library/react';

jest.mock('../../../api/socket', () => ({ getSocket: () => jest.requireActual('../../../../test/fake-socket').fakeSocket }));

import { tradingApi } from '../../../api/trading';
import { acks, fire as deliver, resetFakeSocket } from '../../../../test/fake-socket';
import { useMarketFeed } from './use-market-feed';

const fire = (event: string, m: unknown) => act(() => void deliver(event, m));
const book = (price: string) => ({ asks: [[price, '1']], bids: [] });
const trade = (id: number) => ({ trade_id: id, price: '100', quantity: '1', side: 'buy', time: id });
const depth = (seq: number, price: string) => ({ topic: 'depth:BTC/USDT', seq, data: book(price) });
const trades = (seq: number, ...ids: number[]) => ({ topic: 'trades:BTC/USDT', seq, data: ids.map(trade) });

beforeEach(() => {
  resetFakeSocket();
  // The HTTP first reads never answer: the socket alone decides.
  jest.spyOn(tradingApi, 'depth').mockReturnValue(new Promise(() => undefined));
  jest.spyOn(tradingApi, 'deals').mockReturnValue(new Promise(() => undefined));
});
afterEach(() => jest.restoreAllMocks());

// Regression: the server joins the rooms before it reads the snapshots, so a push can come before
// the subscribe's answer; the older snapshot then replaced the newer book (the reference of market
// orders) and dropped the newer trades, until the next change.
it('pushes that arrive before the snapshot are newer and stay: the book pushed, the trades on top of the snapshot', async () => {
  const { result } = renderHook(() => useMarketFeed('BTC/USDT'));
  expect(acks).toHaveLength(1);
  fire('depth', depth(5, '101'));
  fire('trades', trades(3, 12));
  act(() => acks.shift()!([depth(4, '100'), trades(2, 10, 11)]));
  await waitFor(() => expect(result.current.trades.map((t) => t.trade_id)).toEqual([12, 11, 10]));
  expect(result.current.depth).toEqual(book('101'));
  // Later pushes go on as before.
  fire('depth', depth(6, '102'));
  await waitFor(() => expect(result.current.depth).toEqual(book('102')));
});

it('after a reconnect to a restarted server (seqs from 0 again), its pushes before the snapshot are taken and kept over it', async () => {
  const { result } = renderHook(() => useMarketFeed('BTC/USDT'));
  act(() => acks.shift()!([depth(500, '100'), trades(300, 10)]));
  await waitFor(() => expect(result.current.depth).toEqual(book('100')));
  // A new connection (not recovered): subscribed again; the restarted server's counters start over.
  fire('connect', undefined);
  expect(acks).toHaveLength(1);
  fire('depth', depth(2, '105'));
  fire('trades', trades(1, 20));
  act(() => acks.shift()!([depth(1, '104'), trades(0, 19)]));
  await waitFor(() => expect(result.current.trades.map((t) => t.trade_id)).toEqual([20, 19]));
  expect(result.current.depth).toEqual(book('105'));
});

it('a snapshot newer than what was pushed is taken', async () => {
  const { result } = renderHook(() => useMarketFeed('BTC/USDT'));
  fire('depth', depth(5, '101'));
  act(() => acks.shift()!([depth(7, '103'), trades(2, 10)]));
  await waitFor(() => expect(result.current.depth).toEqual(book('103')));
  fire('depth', depth(7, '999')); // already had it
  fire('depth', depth(8, '104'));
  await waitFor(() => expect(result.current.depth).toEqual(book('104')));
});

it('the first HTTP reads, answering late after a reconnect, do not replace what the socket gave (regression: the reset seqs let them in)', async () => {
  let answerDepth!: (d: unknown) => void;
  let answerDeals!: (d: unknown) => void;
  jest.spyOn(tradingApi, 'depth').mockReturnValue(new Promise((r) => (answerDepth = r)) as never);
  jest.spyOn(tradingApi, 'deals').mockReturnValue(new Promise((r) => (answerDeals = r)) as never);
  const { result } = renderHook(() => useMarketFeed('BTC/USDT'));
  act(() => acks.shift()!([depth(4, '100'), trades(2, 10)]));
  fire('connect', undefined); // subscribed again, its answer not come yet
  await act(async () => {
    answerDepth(book('50'));
    answerDeals([trade(1)]);
  });
  await waitFor(() => expect(result.current.depth).toEqual(book('100')));
  expect(result.current.trades.map((t) => t.trade_id)).toEqual([10]);
});

// Regression: the render that switched market still gave the market before's trades and book, so the order
// form could start its limit price at the other market's last trade.
it('the render that switches market gives none of the market before', async () => {
  const seen: Array<{ symbol: string; trades: number; depth: boolean }> = [];
  const { result, rerender } = renderHook(
    ({ symbol }) => {
      const feed = useMarketFeed(symbol);
      seen.push({ symbol, trades: feed.trades.length, depth: feed.depth !== null });
      return feed;
    },
    { initialProps: { symbol: 'BTC/USDT' } },
  );
  act(() => acks.shift()!([depth(4, '100'), trades(2, 10, 11)]));
  await waitFor(() => expect(result.current.trades).toHaveLength(2));
  seen.length = 0;
  rerender({ symbol: 'ETH/USDT' });
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.filter((s) => s.symbol === 'ETH/USDT' && (s.trades > 0 || s.depth))).toEqual([]);
});

// Regression: first reads that failed were dropped; with the socket down the book was a skeleton for ever and the
// latest trades a bare table, and a market with no trades yet showed no "No data".
it('first reads that failed say so and are read again by retry; a market with no trades has them in', async () => {
  jest
    .spyOn(tradingApi, 'depth')
    .mockRejectedValueOnce(new Error('offline'))
    .mockResolvedValueOnce(book('100') as never);
  jest.spyOn(tradingApi, 'deals').mockRejectedValueOnce(new Error('offline')).mockResolvedValueOnce([]);
  const { result } = renderHook(() => useMarketFeed('BTC/USDT'));
  await waitFor(() => expect(result.current.failed).toEqual({ depth: true, trades: true }));
  expect(result.current).toMatchObject({ depth: null, tradesIn: false });
  act(() => result.current.retry());
  expect(result.current.failed).toEqual({ depth: false, trades: false });
  await waitFor(() => expect(result.current).toMatchObject({ depth: book('100'), tradesIn: true, trades: [], failed: { depth: false, trades: false } }));
});

it('a failure is over when the socket gives what failed', async () => {
  jest.spyOn(tradingApi, 'depth').mockRejectedValueOnce(new Error('offline'));
  jest.spyOn(tradingApi, 'deals').mockRejectedValueOnce(new Error('offline'));
  const { result } = renderHook(() => useMarketFeed('BTC/USDT'));
  await waitFor(() => expect(result.current.failed).toEqual({ depth: true, trades: true }));
  act(() => acks.shift()!([depth(4, '100'), trades(2, 10)]));
  await waitFor(() => expect(result.current).toMatchObject({ depth: book('100'), tradesIn: true, failed: { depth: false, trades: false } }));
});

// Each part says its own failure: a book that did not load is no failure of the latest trades (they say No data).
it('a failed book read and an empty trades answer: only the book failed', async () => {
  jest.spyOn(tradingApi, 'depth').mockRejectedValueOnce(new Error('2105'));
  jest.spyOn(tradingApi, 'deals').mockResolvedValueOnce([]);
  const { result } = renderHook(() => useMarketFeed('BTC/USDT'));
  await waitFor(() => expect(result.current).toMatchObject({ failed: { depth: true, trades: false }, tradesIn: true, trades: [] }));
});

// Regression: a trades push lost between the server's processes (its seq skipped) was never noticed: the trades in
// it never showed.
it('a trades push whose seq skips one subscribes again for a fresh snapshot', async () => {
  const { result } = renderHook(() => useMarketFeed('BTC/USDT'));
  act(() => acks.shift()!([depth(4, '100'), trades(2, 10)]));
  fire('trades', trades(3, 11));
  expect(acks).toHaveLength(0);
  fire('trades', trades(5, 13));
  expect(acks).toHaveLength(1);
  act(() => acks.shift()!([depth(6, '100'), trades(5, 10, 11, 12, 13)]));
  await waitFor(() => expect(result.current.trades.map((t) => t.trade_id)).toEqual([13, 12, 11, 10]));
});
