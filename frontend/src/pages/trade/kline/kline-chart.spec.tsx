import { act, render } from '@testing-library/react';

jest.mock('../../../api/socket', () => ({ getSocket: () => jest.requireActual('../../../../test/fake-socket').fakeSocket }));

/** The bars a series shows, as lightweight-charts keeps them: setData replaces them, update replaces the last or appends. */
type Bar = { time: number; close?: number; value?: number };
const shown: Bar[][] = [];
jest.mock(
  'lightweight-charts',
  () => {
    const series = () => {
      const bars: Bar[] = [];
      shown.push(bars);
      return {
        applyOptions: () => undefined,
        setData: (list: Bar[]) => bars.splice(0, bars.length, ...list),
        update: (bar: Bar) => {
          if (bars.length && bars[bars.length - 1].time === bar.time) bars[bars.length - 1] = bar;
          else bars.push(bar);
        },
      };
    };
    const chart = {
      addSeries: series,
      panes: () => [{ setStretchFactor: () => undefined }, { setStretchFactor: () => undefined }],
      priceScale: () => ({ applyOptions: () => undefined }),
      applyOptions: () => undefined,
      remove: () => undefined,
    };
    return { createChart: () => chart, AreaSeries: {}, CandlestickSeries: {}, HistogramSeries: {} };
    // Virtual: the library's package is ESM for browsers only, which jest's resolver does not take.
  },
  { virtual: true },
);

import { tradingApi } from '../../../api/trading';
import { spotMarket } from '../../../../test/render';
import { acks, fire as deliver, resetFakeSocket } from '../../../../test/fake-socket';
import { KlineChart } from './kline-chart';

const market = spotMarket('BTC');
const candle = (time: number, close: string) => ({ time, open: '100', high: close, low: '100', close, volume: '1', amount: '100' });
const push = (seq: number, time: number, close: string) => ({ topic: 'kline:BTC/USDT:1min', seq, data: candle(time, close) });
const fire = (m: unknown) => act(() => void deliver('kline', m));
/** The candlestick series' bars (the first series made). */
const candles = () => shown[0].map((b) => [b.time, b.close]);

beforeEach(() => {
  resetFakeSocket();
  shown.length = 0;
  jest.spyOn(tradingApi, 'candles').mockReturnValue(new Promise(() => undefined));
});
afterEach(() => jest.restoreAllMocks());

// Regression: a candle pushed before the subscribe's answer (the server joins the room before it
// reads the snapshot) was drawn, then the older snapshot replaced it until the next trade.
it('a candle pushed before the snapshot is newer than its bar and is drawn again over it', () => {
  render(<KlineChart market={market} period="1min" />);
  expect(acks).toHaveLength(1);
  fire(push(5, 120, '101'));
  act(() => acks.shift()!([{ topic: 'kline:BTC/USDT:1min', seq: 4, data: [candle(60, '99'), candle(120, '100')] }]));
  expect(candles()).toEqual([
    [60, 99],
    [120, 101],
  ]);
  fire(push(6, 180, '102'));
  expect(candles().at(-1)).toEqual([180, 102]);
});

it('after a reconnect to a restarted server (seqs from 0 again), its candles are drawn, before and after the snapshot', () => {
  render(<KlineChart market={market} period="1min" />);
  act(() => acks.shift()!([{ topic: 'kline:BTC/USDT:1min', seq: 900, data: [candle(60, '99')] }]));
  act(() => void deliver('connect'));
  expect(acks).toHaveLength(1);
  fire(push(1, 120, '103'));
  act(() => acks.shift()!([{ topic: 'kline:BTC/USDT:1min', seq: 0, data: [candle(60, '99'), candle(120, '100')] }]));
  expect(candles()).toEqual([
    [60, 99],
    [120, 103],
  ]);
  fire(push(2, 120, '104'));
  expect(candles().at(-1)).toEqual([120, 104]);
});

it('the first HTTP history, answering late after a reconnect, does not replace what the socket gave (regression: it was drawn over it)', async () => {
  let answer!: (list: unknown) => void;
  jest.spyOn(tradingApi, 'candles').mockReturnValue(new Promise((r) => (answer = r)) as never);
  render(<KlineChart market={market} period="1min" />);
  act(() => acks.shift()!([{ topic: 'kline:BTC/USDT:1min', seq: 4, data: [candle(60, '99'), candle(120, '100')] }]));
  act(() => void deliver('connect'));
  await act(async () => answer([candle(60, '50')]));
  expect(candles()).toEqual([
    [60, 99],
    [120, 100],
  ]);
});

// Regression: a history that did not load (the socket down too) left an empty chart, as for a market with no candles.
it('a history that did not load offers a retry in the chart’s place, which loads it again', async () => {
  const read = jest
    .spyOn(tradingApi, 'candles')
    .mockRejectedValueOnce(new Error('offline'))
    .mockResolvedValueOnce([candle(60, '101')]);
  const view = render(<KlineChart market={market} period="1min" />);
  const retry = await view.findByRole('button', { name: 'Try again' });
  expect((view.getByTestId('kline') as HTMLElement).style.display).toBe('none');
  await act(async () => retry.click());
  await act(async () => undefined);
  expect(view.queryByTestId('load-failed')).toBeNull();
  expect(candles()).toEqual([[60, 101]]);
  expect(read).toHaveBeenCalledTimes(2);
});

// Regression: a candle push lost between the server's processes (its seq skipped) was never noticed: a finished
// candle could keep figures short of its last trades until a reload.
it('a candle push whose seq skips one subscribes again for a fresh snapshot', () => {
  render(<KlineChart market={market} period="1min" />);
  act(() => acks.shift()!([{ topic: 'kline:BTC/USDT:1min', seq: 4, data: [candle(60, '101')] }]));
  fire(push(5, 60, '102'));
  expect(acks).toHaveLength(0);
  fire(push(7, 120, '104'));
  expect(acks).toHaveLength(1);
  act(() => acks.shift()!([{ topic: 'kline:BTC/USDT:1min', seq: 7, data: [candle(60, '103'), candle(120, '104')] }]));
  expect(candles()).toEqual([
    [60, 103],
    [120, 104],
  ]);
});
