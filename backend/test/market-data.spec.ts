import { EngineBus } from '../src/modules/engine/engine-bus';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { MarketRegistry } from '../src/modules/engine/market-registry.service';
import { MarketDataService } from '../src/modules/market/market-data.service';
import { MarketFeedService } from '../src/modules/realtime/market-feed.service';
import { MarkPriceService, SAMPLE_STALE_MS } from '../src/modules/market/mark-price.service';
import { registerByEmail, setFundPassword } from './support/accounts';
import { deposit } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

// The tests sample themselves (the sampler is off), so every tick written is one they asked for.
process.env.MARK_PRICE = 'off';

describe('market data from trades (real PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('candles, tickers, latest trades, depth and mark ticks all come from the venue’s own trades and book', async () => {
    const a = await registerByEmail(t);
    const b = await registerByEmail(t);
    await setFundPassword(t, a);
    await setFundPassword(t, b);
    await deposit(t, a.user.id, 2, '10');
    await deposit(t, b.user.id, 3, '100000');
    const order = (token: string, body: Record<string, string>) =>
      t
        .http()
        .post('/api/coin/trade')
        .set('Authorization', token)
        .type('form')
        .send({ symbol: 'ETH/USDT', ...body });
    await order(a.token, { side: 'sell', type: 'limit', price: '3000', quantity: '1' });
    await order(a.token, { side: 'sell', type: 'limit', price: '3100', quantity: '1' });
    await order(a.token, { side: 'sell', type: 'limit', price: '3200', quantity: '1' });
    await order(b.token, { side: 'buy', type: 'limit', price: '3100', quantity: '1.5' }); // 1 @ 3000, 0.5 @ 3100
    await order(b.token, { side: 'buy', type: 'limit', price: '2900', quantity: '2' });
    // Orders are answered once matched; everyone else sees the trades once they are settled.
    await t.app.get(EngineHost).idle();

    const deals = (await t.http().get('/api/currency/deal').query({ symbol: 'ETH/USDT' })).body.data;
    expect(deals.map((d: { price: string; quantity: string; side: string }) => [d.price, d.quantity, d.side])).toEqual([
      ['3100', '0.5', 'buy'],
      ['3000', '1', 'buy'],
    ]);

    for (const period of ['time-share', '1min', '5min', '30min', '60min', '1day', '1week', '1mon']) {
      const res = await t.http().post('/api/kline/historyV3').type('form').send({ symbol: 'ETH/USDT', period, limit: '10' });
      expect(res.body.data).toEqual([expect.objectContaining({ open: '3000', high: '3100', low: '3000', close: '3100', volume: '1.5' })]);
    }
    expect((await t.http().post('/api/kline/historyV3').type('form').send({ symbol: 'ETH/USDT', period: '2min' })).body.code).toBe(1000);
    // A JSON null is no absent field: its rule answers (regression: null replaced the default 300, and LIMIT NULL read every candle).
    const nullLimit = await t.http().post('/api/kline/historyV3').type('json').send({ symbol: 'ETH/USDT', period: '1min', limit: null });
    expect(nullLimit.body.code).toBe(1000);
    expect((await t.http().post('/api/kline/historyV3').type('json').send({ symbol: 'ETH/USDT', period: '1min' })).body.data).toHaveLength(1);

    const quotation = (await t.http().get('/api/currency/quotation_new')).body.data;
    const eth = quotation.find((g: { quote: string }) => g.quote === 'USDT').markets.find((m: { symbol: string }) => m.symbol === 'ETH/USDT');
    expect(eth).toMatchObject({ last: '3100', open_24h: '3000', change_pct: '3.33', high: '3100', low: '3000', volume: '1.5', quote_volume: '4550' });

    const depth = (await t.http().get('/api/currency/depth').query({ symbol: 'ETH/USDT', levels: 5 })).body.data;
    expect(depth).toEqual({
      symbol: 'ETH/USDT',
      bids: [['2900', '2']],
      asks: [
        ['3100', '0.5'],
        ['3200', '1'],
      ],
    });

    const markets = (await t.http().get('/api/currencyMatch/all')).body.data;
    expect(markets[0]).toMatchObject({ symbol: 'BTC/USDT', tick_size: '0.01', lot_size: '0.00001', min_qty: '0.0001', price_decimals: 2, qty_decimals: 5 });
    expect((await t.http().get('/api/currency/deal').query({ symbol: 'DOGE/USDT' })).body.code).toBe(2001);

    const ticks = await t.app.get(MarkPriceService).sample();
    expect(ticks.find((x) => x.marketId === 2)).toMatchObject({ price: '3100' });
    const [row] = await t.ds.query('SELECT price::text FROM mark_prices WHERE id = $1', [ticks.find((x) => x.marketId === 2)!.id]);
    expect(row.price).toBe('3100.000000000000000000');
  });

  it('a tick insert held past 4 s is cancelled by the server (none commits late), and a sample that reaches the database more than SAMPLE_STALE_MS after its time is dropped, by the check the insert itself makes when it runs (regression: a queued sample could commit minutes after its time, after an option it should have delivered was void)', async () => {
    const marks = t.app.get(MarkPriceService);
    expect(t.app.get(EngineHost).lastTradePrice(2)).toBeDefined(); // the first test traded there: the sample has a market to write
    const count = async () => (await t.ds.query('SELECT COUNT(*)::int AS n FROM mark_prices'))[0].n as number;
    const before = await count();
    const locker = t.ds.createQueryRunner();
    await locker.connect();
    try {
      // Held 6 s: the insert waits for the lock, and the server cancels it at 4 s.
      await locker.startTransaction();
      await locker.query('LOCK TABLE mark_prices IN EXCLUSIVE MODE');
      const started = Date.now();
      const hung = marks.sample();
      const release = new Promise((r) => setTimeout(r, 6000)).then(() => locker.commitTransaction());
      await expect(hung).rejects.toThrow(/statement timeout|canceling statement/);
      expect(Date.now() - started).toBeLessThan(6000);
      await release;
      expect(await count()).toBe(before);
      // A sample 9.5 s old reaches the database at once but waits 1.5 s for the lock (well inside the 4 s
      // bound): it runs 11 s after its time and is not written.
      await locker.startTransaction();
      await locker.query('LOCK TABLE mark_prices IN EXCLUSIVE MODE');
      const late = marks.sample(Date.now() - SAMPLE_STALE_MS + 500);
      await new Promise((r) => setTimeout(r, 1500));
      await locker.commitTransaction();
      await expect(late).rejects.toThrow(/dropped: it reached the database more than 10000 ms after its time/);
      expect(await count()).toBe(before);
      // The next sample in time is written as usual.
      expect((await marks.sample()).length).toBeGreaterThan(0);
      expect(await count()).toBeGreaterThan(before);
    } finally {
      if (locker.isTransactionActive) await locker.rollbackTransaction();
      await locker.release();
    }
  });

  it('a tickers read that began before a trade was projected is answered but not cached (regression: its older figures stood for a second, and a snapshot sent them with the newer seq)', async () => {
    const data = t.app.get(MarketDataService);
    const bus = t.app.get(EngineBus);
    const real = t.ds.query.bind(t.ds);
    let reads = 0;
    const spy = jest.spyOn(t.ds, 'query').mockImplementation(async (...args: Parameters<typeof real>) => {
      const rows = await real(...args);
      if (String(args[0]).includes("FROM klines WHERE period = '1min'") && ++reads === 1) bus.emit('projected', 0); // a trade projected meanwhile
      return rows;
    });
    try {
      await data.tickers(true);
      await data.tickers();
      expect(reads).toBe(2);
    } finally {
      spy.mockRestore();
    }
  });

  // Regression: while the sequencer was being rebuilt (after a failed journal write, or replaying at start) the
  // depth read answered an empty book as if it were the market's, to HTTP and to a subscribe's snapshot, and
  // nothing sent the book again after the rebuild.
  it('no book while there is no sequencer: 2105, not an empty book; every book is sent again after a rebuild', async () => {
    const host = t.app.get(EngineHost);
    const away = jest.spyOn(host, 'book').mockReturnValue(undefined);
    try {
      expect((await t.http().get('/api/currency/depth').query({ symbol: 'ETH/USDT' })).body).toMatchObject({ code: 2105, type: 'error' });
    } finally {
      away.mockRestore();
    }
    const feed = t.app.get(MarketFeedService) as unknown as { dirtyBooks: Set<number> };
    feed.dirtyBooks.clear();
    t.app.get(EngineBus).emit('rebuilt');
    expect([...feed.dirtyBooks].sort()).toEqual(
      t.app
        .get(MarketRegistry)
        .all()
        .map((m) => m.id)
        .sort(),
    );
    expect((await t.http().get('/api/currency/depth').query({ symbol: 'ETH/USDT' })).body.code).toBe(1);
  });
});
