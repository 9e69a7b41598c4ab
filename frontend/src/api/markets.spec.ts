import { marketsApi } from './markets';

describe('the Markets tab sparkline', () => {
  const realFetch = global.fetch;
  afterEach(() => {
    jest.restoreAllMocks();
    global.fetch = realFetch;
  });

  it('asks for the hourly candles of the last 24 hours only (a quiet market has older ones)', async () => {
    const now = Date.UTC(2026, 11, 1, 17, 42, 10);
    jest.spyOn(Date, 'now').mockReturnValue(now);
    const fetchMock = jest.fn().mockResolvedValue({ json: () => Promise.resolve({ type: 'ok', code: 1, message: '', data: [] }) });
    global.fetch = fetchMock as unknown as typeof fetch;
    await marketsApi.spark('BTC/USDT');
    const body = new URLSearchParams(fetchMock.mock.calls[0][1].body as string);
    // From 18:00 the day before (the hour 23 hours before this one): 24 hourly candles with the current one.
    expect(Object.fromEntries(body)).toEqual({ symbol: 'BTC/USDT', period: '60min', from: String(Date.UTC(2026, 10, 30, 18) / 1000), limit: '24' });
  });
});
