import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApp } from '../src/app.factory';
import { loadConfig } from '../src/infra/config/config';
import { registerByEmail } from './support/accounts';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { MarketRegistry } from '../src/modules/engine/market-registry.service';
import { MarkPriceService } from '../src/modules/market/mark-price.service';
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

/**
 * The same in one jest process, on the source: the sequencer's app (commands over Redis, its
 * projector lingering 3 s) and a ROLE=api app on the same database and Redis prefix.
 */
describe('split roles in process: a transfer into the trade account through an api process', () => {
  const USDT = 3;
  let engine: TestApp;
  let api: NestExpressApplication;
  const markPrice = process.env.MARK_PRICE;
  beforeAll(async () => {
    // No sampler: the tests record the mark price's ticks themselves (MarkPriceService.sample).
    process.env.MARK_PRICE = 'off';
    engine = await startTestApp({ engine: { ...loadConfig().engine, transport: 'redis', projectLingerMs: 3000 } });
    const role = process.env.ROLE;
    process.env.ROLE = 'api';
    try {
      api = await createApp(engine.config);
      await api.init();
    } finally {
      if (role === undefined) delete process.env.ROLE;
      else process.env.ROLE = role;
    }
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
});
