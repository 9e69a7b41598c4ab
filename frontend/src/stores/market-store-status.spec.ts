import type { TickerData } from '@kestrel/contracts';
import { api } from '../api/endpoints';
import { fakeSocket, fire, resetFakeSocket } from '../../test/fake-socket';

jest.mock('../api/socket', () => ({ getSocket: () => jest.requireActual('../../test/fake-socket').fakeSocket }));

import { useMarketStore } from './market.store';

const btc = { symbol: 'BTC/USDT', base: 'BTC', quote: 'USDT', last: '100' } as TickerData;
const socket = fakeSocket as { connected: boolean };

afterEach(() => {
  jest.restoreAllMocks();
  resetFakeSocket();
  socket.connected = true;
});

// Regression: the lists said "Live" when opened while the socket was down (it dropped while nobody followed the
// tickers, or its first connect was refused): only a drop seen while followed turned it off.
it('a list followed while the socket is down, or whose connect is refused, is not "Live"', async () => {
  jest.spyOn(api, 'quotation').mockResolvedValue([{ markets: [btc] }] as Awaited<ReturnType<typeof api.quotation>>);
  const first = useMarketStore.getState().follow();
  await new Promise((r) => setTimeout(r, 0));
  fire('connect');
  expect(useMarketStore.getState().status).toBe('live');
  first();
  // Nobody follows; the socket drops meanwhile (no listener of this store hears it).
  socket.connected = false;
  const again = useMarketStore.getState().follow();
  expect(useMarketStore.getState().status).toBe('offline');
  fire('connect');
  expect(useMarketStore.getState().status).toBe('live');
  fire('connect_error', new Error('refused'));
  expect(useMarketStore.getState().status).toBe('offline');
  again();
});
