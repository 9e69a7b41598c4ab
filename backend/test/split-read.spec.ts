import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/infra/config/config';
import { registerByEmail } from './support/accounts';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { JOURNAL_COMMANDS } from '../src/modules/engine/journal-writer';
import { MarketRegistry } from '../src/modules/engine/market-registry.service';
import { MarkPriceService } from '../src/modules/market/mark-price.service';
import { MarketDataService } from '../src/modules/market/market-data.service';
import { REDIS } from '../src/infra/redis/redis.module';
import type { Redis } from 'ioredis';
import { deposit, spotTrader } from './support/funding';
import { runLoadScript } from './support/load-script';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Split roles, read-your-writes on an api process (load-tests/split-read.mjs on the built code):
 * the engine's projector lingers 3 s, yet the owner's `coin/list` through the api process shows the
 * order it just placed within half of that: the api process asks the engine not to linger.
 */
describe('split roles: an api process does not wait out the projector linger for its own writes', () => {
  it('shows each new order on the next read at once', async () => {
    const { code, out } = await runLoadScript('split-read.mjs');
    if (code !== 0) process.stderr.write(out.slice(-20_000));
    expect(out).toMatch(/^split read: 3 of 3 reads within 1500 ms$/m);
    expect(code).toBe(0);
  }, 180_000);
});

const USDT = 3;

/** A ROLE=api app on the engine app's database and Redis prefix: it forwards every command. */
async function apiApp(engine: TestApp): Promise<NestExpressApplication> {
  const role = process.env.ROLE;
  process.env.ROLE = 'api';
  try {
    const api = await createApp(engine.config);
    await api.init();
    return api;
  } finally {
    if (role === undefined) delete process.env.ROLE;
    else process.env.ROLE = role;
  }
}

/**
 * The same in one jest process, on the source: the sequencer's app (commands over Redis, its
 * projector lingering 3 s) and a ROLE=api app on the same database and Redis prefix.
 */
describe('split roles in process: a transfer into the trade account through an api process', () => {
  let engine: TestApp;
  let api: NestExpressApplication;
  const markPrice = process.env.MARK_PRICE;
  beforeAll(async () => {
    // No sampler: the tests record the mark price's ticks themselves (MarkPriceService.sample).
    process.env.MARK_PRICE = 'off';
    engine = await startTestApp({ engine: { ...loadConfig().engine, transport: 'redis', projectLingerMs: 3000 } });
    api = await apiApp(engine);
  });
  afterAll(async () => {
    await api?.close();
    await engine?.close();
    if (markPrice === undefined) delete process.env.MARK_PRICE;
    else process.env.MARK_PRICE = markPrice;
  });

  it('the price now on an api process is the last trade, recorded by the engine, not an older tick (regression: it dealt at the last sample)', async () => {
    const [seller, buyer] = [await spotTrader(engine, 1, '1'), await spotTrader(engine, USDT, '1000')];
    const trade = async (price: string) => {
      for (const [u, side] of [
        [seller, 'sell'],
        [buyer, 'buy'],
      ] as const) {
        const body = { symbol: 'BTC/USDT', side, type: 'limit', price, quantity: '0.01' };
        expect((await engine.http().post('/api/coin/trade').set('Authorization', u.token).type('json').send(body)).body.code).toBe(1);
      }
    };
    await trade('100');
    const sampled = await engine.app.get(MarkPriceService).sample();
    expect(sampled.map((k) => k.price)).toEqual(['100']);
    await trade('120');
    await engine.app.get(EngineHost).idle();
    const tick = await api.get(MarkPriceService).now(api.get(MarketRegistry).get('BTC/USDT'));
    expect({ price: tick.price, newer: BigInt(tick.id) > BigInt(sampled[0].id), ts: tick.ts instanceof Date }).toEqual({ price: '120', newer: true, ts: true });
    // The engine recorded it: a deal tick in mark_prices.
    expect(await engine.ds.query(`SELECT trim_scale(price)::text AS price, source FROM mark_prices WHERE id = $1`, [tick.id])).toEqual([
      { price: '120', source: 'deal' },
    ]);
  });

  it('the next read on that process shows the coin credited (regression: it read the balances before the projector wrote the credit)', async () => {
    const u = await registerByEmail(engine);
    await deposit(engine, u.user.id, USDT, '100');
    const change = { from: 'coin', to: 'lever', currency_id: USDT, amount: '40' };
    expect((await engine.http().post('/api/wallet/change').set('Authorization', u.token).type('form').send(change)).body.code).toBe(1);
    const viaApi = (path: string, body: Record<string, unknown>) =>
      request(api.getHttpServer()).post(`/api/${path}`).set('Authorization', u.token).type('form').send(body);

    const back = await viaApi('wallet/change', { from: 'lever', to: 'coin', currency_id: USDT, amount: '40', client_id: 'split-in-1' });
    expect(back.body).toMatchObject({ code: 1, data: { duplicate: false } });
    const t0 = performance.now();
    const accounts = (await viaApi('wallet/list', {})).body.data.accounts as Array<{
      account: string;
      items: Array<{ currency_id: number; available: string }>;
    }>;
    const available = (account: string) => accounts.find((a) => a.account === account)!.items.find((i) => i.currency_id === USDT)?.available ?? '0';
    expect({ coin: available('coin'), lever: available('lever') }).toEqual({ coin: '100', lever: '0' });
    // It asked the engine not to linger (3 s) for it.
    expect(performance.now() - t0).toBeLessThan(1500);
  });
  // Regression: the engine wrote its shared book without an expiry or its lease's token, so an api
  // process served the last book shared for ever once no engine refreshed it (the engine gone, no
  // take-over yet), and a paused former holder's late write could replace the new holder's book.
  it('an api process serves the book its owner keeps refreshing (kept two leases): with none shared it answers 2105, and an older holder’s write is refused', async () => {
    const host = engine.app.get(EngineHost);
    const redis = engine.app.get<Redis>(REDIS);
    const market = engine.app.get(MarketRegistry).get('BTC/USDT');
    const key = `depth:${market.id}`;
    const depth = async () => (await request(api.getHttpServer()).get('/api/currency/depth').query({ symbol: 'BTC/USDT' })).body;
    const waitFor = async (what: string, cond: () => Promise<boolean>) => {
      for (const end = Date.now() + 10_000; !(await cond()); await new Promise((r) => setTimeout(r, 50)))
        if (Date.now() > end) throw new Error(`waited 10 s for ${what}`);
    };
    const buyer = await spotTrader(engine, USDT, '100');
    const bid = { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '50', quantity: '0.01' };
    expect((await engine.http().post('/api/coin/trade').set('Authorization', buyer.token).type('json').send(bid)).body.code).toBe(1);
    const showsBid = async () => ((await depth()).data?.bids as string[][] | undefined)?.some(([price]) => price === '50') ?? false;
    await waitFor('the api process to show the bid', showsBid);
    // Kept for two leases, refreshed every third of one while the book is quiet.
    const leaseMs = engine.config.engine.leaseMs;
    expect(await redis.pttl(key)).toBeGreaterThan(0);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(2 * leaseMs);
    await new Promise((r) => setTimeout(r, leaseMs));
    expect(await redis.pttl(key)).toBeGreaterThan(leaseMs);

    // A holder with a newer token has shared (this engine now writes as an older holder would).
    const token = host.fencingToken()!;
    await redis.set('depth-fence', String(token + 1), 'PX', 60_000);
    await redis.del(key);
    expect(await engine.app.get(MarketDataService).shareDepth(market.id)).toBe(false);
    expect(await redis.exists(key)).toBe(0);
    // No book shared: not known here, which is not an empty book.
    expect(await depth()).toMatchObject({ code: 2105, data: null });

    // The fence back at this holder's token: its next refresh shares the quiet book again.
    await redis.set('depth-fence', String(token), 'PX', 60_000);
    await waitFor('the book to be shared again', showsBid);
  }, 60_000);
});

describe('split roles in process: a forwarded place and its deadline', () => {
  let engine: TestApp;
  let api: NestExpressApplication;
  beforeAll(async () => {
    engine = await startTestApp({ engine: { ...loadConfig().engine, transport: 'redis', leaseMs: 1500, forwardTimeoutMs: 800 } });
    api = await apiApp(engine);
  });
  afterAll(async () => {
    await api?.close();
    await engine?.close();
  });
  const waitFor = async (what: string, cond: () => Promise<boolean> | boolean) => {
    for (const end = Date.now() + 15_000; !(await cond()); await new Promise((r) => setTimeout(r, 50)))
      if (Date.now() > end) throw new Error(`waited 15 s for ${what}`);
  };
  const buy = (token: string) =>
    request(api.getHttpServer())
      .post('/api/coin/trade')
      .set('Authorization', token)
      .type('json')
      .send({ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100', quantity: '0.01' });

  // Regression: the api process answered 2107 after its timeout, the place stayed in the command
  // stream while no engine read it, and the next holder placed it seconds later (minutes, after a
  // longer outage), at a price its client had given up on; without a client id it could not be
  // retried safely either, and a retry made a second order.
  it('a place its api process answered 2107 for, still in the command stream when an engine takes the lease, is not placed', async () => {
    const host = engine.app.get(EngineHost);
    const buyer = await spotTrader(engine, USDT, '1000');
    // Another engine holds the lease for 2.5 s (it took it, then died): this one steps down and reads no command.
    await engine.ds.query(
      `UPDATE engine_lease SET token = token + 1, holder = 'another engine', expires_at = now() + interval '2500 milliseconds' WHERE name = 'engine'`,
    );
    await waitFor('the engine to step down', () => !host.owner);
    expect((await buy(buyer.token)).body.code).toBe(2107);
    // The lease expires and this engine takes it again: it reads the stranded place and journals it.
    const journaled = async () =>
      (await engine.ds.query(`SELECT 1 FROM sequencer_journal WHERE ${JOURNAL_COMMANDS} LIKE $1`, [`%"userId":${buyer.user.id},%"notAfter":%`])).length > 0;
    await waitFor('the stranded place to be journaled', journaled);
    await host.idle();
    expect(await engine.ds.query('SELECT id FROM orders WHERE user_id = $1', [buyer.user.id])).toEqual([]);
    const [coin] = await engine.ds.query(
      `SELECT trim_scale(available)::text AS available, trim_scale(frozen)::text AS frozen FROM balances WHERE owner_type = 'user' AND owner_id = $1 AND account_type = 'coin' AND currency_id = $2`,
      [buyer.user.id, USDT],
    );
    expect(coin).toEqual({ available: '1000', frozen: '0' });
  }, 60_000);

  // Regression (review of the above): the deadline was stamped on the api process's clock and compared
  // with the batch time, on the engine's, which never goes back: an engine whose batches ran ahead
  // (a clock stepped back, a holder before it with a fast clock) refused every forwarded place.
  it('a place is taken however far ahead the engine’s batch clock runs: its deadline is made on that clock', async () => {
    const host = engine.app.get(EngineHost);
    await waitFor('the engine to hold the lease', () => host.owner && host.settled);
    await host.idle();
    // A batch journaled a minute ahead of this clock (by a previous holder): the batch time never goes back.
    await engine.ds.query('INSERT INTO sequencer_journal (seq, ts, commands_text) VALUES ($1, $2, $3)', [
      host.positions.journaled + 1,
      Date.now() + 60_000,
      JSON.stringify([{ t: 'cancel', userId: 0, orderId: 999_999 }]),
    ]);
    await host.recover();
    const buyer = await spotTrader(engine, USDT, '1000');
    expect((await buy(buyer.token)).body).toMatchObject({ code: 1, data: { status: 'waiting' } });
  }, 60_000);
});
