import type { TickerData } from '@kestrel/contracts';
import { api } from '../api/endpoints';

jest.mock('../api/socket', () => ({ getSocket: () => jest.requireActual('../../test/fake-socket').fakeSocket }));

import { acks as answers, fire } from '../../test/fake-socket';
import { useMarketStore } from './market.store';

const btc = (last: string) => ({ symbol: 'BTC/USDT', base: 'BTC', quote: 'USDT', last }) as TickerData;
const last = () => useMarketStore.getState().tickers.map((x) => x.last);

// Regression: the server joins the room before it reads the snapshot, so a push can come before the
// subscribe's answer; the older snapshot then replaced the newer tickers (and, after a server restart,
// the pushes before it were dropped as older than the seqs seen before).
it('tickers pushed before the snapshot are newer and stay, also from a restarted server whose seqs start again', async () => {
  jest.spyOn(api, 'quotation').mockReturnValue(new Promise(() => undefined));
  const stop = useMarketStore.getState().follow();
  fire('tickers', { topic: 'tickers', seq: 5, data: [btc('101')] });
  answers.shift()!([{ topic: 'tickers', seq: 4, data: [btc('100')] }]);
  expect(last()).toEqual(['101']);
  fire('tickers', { topic: 'tickers', seq: 6, data: [btc('102')] });
  expect(last()).toEqual(['102']);
  // A new connection to a restarted server: subscribed again, its counter from 0.
  fire('connect');
  fire('tickers', { topic: 'tickers', seq: 1, data: [btc('105')] });
  expect(last()).toEqual(['105']);
  answers.shift()!([{ topic: 'tickers', seq: 0, data: [btc('104')] }]);
  expect(last()).toEqual(['105']);
  // A snapshot newer than the pushes is taken.
  fire('connect');
  fire('tickers', { topic: 'tickers', seq: 3, data: [btc('106')] });
  answers.shift()!([{ topic: 'tickers', seq: 4, data: [btc('107')] }]);
  expect(last()).toEqual(['107']);
  stop();
});
