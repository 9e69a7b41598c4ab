import type { TickerData } from '@kestrel/contracts';
import { api } from '../api/endpoints';
import { useMarketStore } from './market.store';

const btc = { symbol: 'BTC/USDT', base: 'BTC', quote: 'USDT', last: '100' } as TickerData;

afterEach(() => jest.restoreAllMocks());

describe('market store', () => {
  it('tells a failed first load from an empty market list, and loads again on retry', async () => {
    const quotation = jest.spyOn(api, 'quotation').mockRejectedValueOnce(new Error('offline'));
    useMarketStore.getState().load();
    await new Promise((r) => setTimeout(r, 0));
    expect(useMarketStore.getState()).toMatchObject({ loaded: false, failed: true, tickers: [] });

    quotation.mockResolvedValueOnce([{ markets: [btc] }] as Awaited<ReturnType<typeof api.quotation>>);
    useMarketStore.getState().load();
    expect(useMarketStore.getState().failed).toBe(false);
    await new Promise((r) => setTimeout(r, 0));
    expect(useMarketStore.getState()).toMatchObject({ loaded: true, failed: false, tickers: [btc] });
  });
});
