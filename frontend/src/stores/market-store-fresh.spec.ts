import type { TickerData } from '@kestrel/contracts';
import { api } from '../api/endpoints';

/** A socket whose subscribe answers the test gives. */
const answers: Array<(answer: unknown) => void> = [];
const fakeSocket = {
  connected: true,
  recovered: false,
  on: () => undefined,
  off: () => undefined,
  emit: (event: string, _topics: unknown, ack?: (answer: unknown) => void) => void (event === 'subscribe' && ack && answers.push(ack)),
};
jest.mock('../api/socket', () => ({ getSocket: () => fakeSocket }));

import { useMarketStore } from './market.store';

const btc = (last: string) => ({ symbol: 'BTC/USDT', base: 'BTC', quote: 'USDT', last }) as TickerData;

it('tickers kept while nobody followed them are not fresh until a follower’s snapshot comes (regression: a price minutes old became the limit price)', async () => {
  jest.spyOn(api, 'quotation').mockResolvedValue([{ markets: [btc('69000')] }] as Awaited<ReturnType<typeof api.quotation>>);
  const stop = useMarketStore.getState().follow();
  await new Promise((r) => setTimeout(r, 0));
  expect(useMarketStore.getState()).toMatchObject({ fresh: true });
  answers.shift()!([{ topic: 'tickers', seq: 1, data: [btc('69000')] }]);
  stop();
  // Nobody follows: no pushes come, what is kept ages.
  expect(useMarketStore.getState()).toMatchObject({ fresh: false, tickers: [btc('69000')] });
  const again = useMarketStore.getState().follow();
  expect(useMarketStore.getState().fresh).toBe(false);
  answers.shift()!([{ topic: 'tickers', seq: 9, data: [btc('65000')] }]);
  expect(useMarketStore.getState()).toMatchObject({ fresh: true, tickers: [btc('65000')] });
  again();
});
