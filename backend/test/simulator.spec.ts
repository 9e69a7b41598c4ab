import { BusinessError } from '../src/infra/http/business-error';
import { ErrorCode } from '../src/infra/http/error-codes';
import { CoinTradeService } from '../src/modules/coin-trade/coin-trade.service';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { MarketRegistry } from '../src/modules/engine/market-registry.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import * as prng from '../src/modules/simulator/prng';
import { SimulatorService, simulatorSeed, TAKER_BAND } from '../src/modules/simulator/simulator.service';
import { registerByEmail } from './support/accounts';
import { deposit } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

// The real generators, watched: which one a start picks for each market.
jest.mock('../src/modules/simulator/prng', () => {
  const actual = jest.requireActual('../src/modules/simulator/prng');
  return { ...actual, mulberry32: jest.fn(actual.mulberry32), secureRandom: jest.fn(actual.secureRandom) };
});
const mulberry32 = prng.mulberry32 as jest.MockedFunction<typeof prng.mulberry32>;
const secureRandom = prng.secureRandom as jest.MockedFunction<typeof prng.secureRandom>;

describe('market simulator (real PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('quotes and trades through the engine, funded by recorded events, touching no other account', async () => {
    const bystander = await registerByEmail(t);
    await deposit(t, bystander.user.id, 3, '500');
    const entriesOf = async (id: number) =>
      (await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger WHERE owner_type = $1 AND owner_id = $2', ['user', id]))[0].n;
    const before = await entriesOf(bystander.user.id);

    const sim = t.app.get(SimulatorService);
    await sim.start();
    for (let i = 0; i < 12; i++) await sim.tick();
    await t.app.get(SimulatorService).onApplicationShutdown();
    await t.app.get(EngineHost).idle(); // its orders were answered once matched: let settlement commit

    const [{ trades }] = await t.ds.query('SELECT COUNT(*)::int AS trades FROM trades');
    expect(trades).toBeGreaterThan(0);
    const depth = (await t.http().get('/api/currency/depth').query({ symbol: 'BTC/USDT' })).body.data;
    expect(depth.bids.length).toBeGreaterThan(0);
    expect(depth.asks.length).toBeGreaterThan(0);
    expect(Number(depth.bids[0][0])).toBeLessThan(Number(depth.asks[0][0]));

    const funding = await t.ds.query(
      `SELECT DISTINCT u.status FROM ledger_entries e JOIN users u ON u.id = e.owner_id WHERE e.code = 900 AND e.owner_type = 'user'`,
    );
    expect(funding).toEqual([{ status: 'system' }]);
    const parties = await t.ds.query(`SELECT DISTINCT u.status FROM trades x JOIN users u ON u.id IN (x.maker_user_id, x.taker_user_id)`);
    expect(parties).toEqual([{ status: 'system' }]);
    expect(await entriesOf(bystander.user.id)).toBe(before);
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.ok).toBe(true);
    expect(tb.currencies.find((c) => c.symbol === 'USDT')!.system_funding).not.toBe('0');
  });

  it("the house's taker never trades beyond the band the maker quotes around the reference (regression: up to 1 %, a spike of its own making on the recorded mark)", async () => {
    const sim = t.app.get(SimulatorService);
    const inside = sim as unknown as { takerId: number; markets: Array<{ market: { symbol: string }; gbm: { price: number } }> };
    const asked: Array<{ worst: number; reference: number }> = [];
    const trade = t.app.get(CoinTradeService);
    const real = trade.place.bind(trade);
    const place = jest.spyOn(trade, 'place').mockImplementation((userId, dto) => {
      if (userId === inside.takerId && dto.type === 'market')
        asked.push({ worst: Number(dto.price), reference: inside.markets.find((m) => m.market.symbol === dto.symbol)!.gbm.price });
      return real(userId, dto);
    });
    try {
      await sim.start();
      for (let i = 0; i < 40 && asked.length < 3; i++) await sim.tick();
      await sim.onApplicationShutdown();
      await t.app.get(EngineHost).idle();
    } finally {
      place.mockRestore();
    }
    expect(asked.length).toBeGreaterThan(0);
    for (const { worst, reference } of asked) expect(Math.abs(worst / reference - 1)).toBeLessThanOrEqual(TAKER_BAND + 1e-6);
    expect(TAKER_BAND).toBeLessThan(0.005);
  });

  it('makes only its own markets: a market listed later gets no invented quotes, and its coin no float (regression: quoted around 100, funded beyond its supply)', async () => {
    await t.ds.query(
      `INSERT INTO markets (symbol, base_currency_id, quote_currency_id, tick_size, lot_size, min_qty, maker_fee, taker_fee, sort)
       SELECT 'ETH/BTC', e.id, b.id, '0.00001', '0.001', '0.001', '0.001', '0.001', 99 FROM coins e, coins b WHERE e.symbol = 'ETH' AND b.symbol = 'BTC'`,
    );
    await t.app.get(EngineHost).marketsChanged();
    const sim = t.app.get(SimulatorService);
    await sim.start();
    for (let i = 0; i < 12; i++) await sim.tick();
    await sim.onApplicationShutdown();
    await t.app.get(EngineHost).idle();
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM orders o JOIN markets m ON m.id = o.market_id WHERE m.symbol = 'ETH/BTC'`);
    expect(n).toBe(0);
  });

  it('has no seed unless MARKET_SIMULATOR_SEED fixes one (regression: a fixed, published default)', () => {
    expect(simulatorSeed(undefined)).toBeUndefined();
    expect(simulatorSeed('')).toBeUndefined();
    expect(simulatorSeed('42')).toBe(42);
    expect(() => simulatorSeed('4e2')).toThrow(/MARKET_SIMULATOR_SEED/);
    // A production start refuses a seed: it would make every coming price, and so every option's and
    // contract's outcome, known to whoever set it (regression: it only logged a warning).
    expect(() => simulatorSeed('42', true)).toThrow(/refused when NODE_ENV=production/);
    expect(simulatorSeed(undefined, true)).toBeUndefined();
  });

  it('unseeded, each market draws from a CSPRNG of its own, never mulberry32, which MARKET_SIMULATOR_SEED alone selects (regression: its 32-bit state, recoverable from public order sizes, predicted the prices)', async () => {
    const sim = t.app.get(SimulatorService);
    const simulated = t.app
      .get(MarketRegistry)
      .all()
      .filter((m) => m.symbol === 'BTC/USDT' || m.symbol === 'ETH/USDT')
      .map((m) => m.id);
    const saved = process.env.MARKET_SIMULATOR_SEED;
    try {
      delete process.env.MARKET_SIMULATOR_SEED;
      mulberry32.mockClear();
      secureRandom.mockClear();
      await sim.start();
      for (let i = 0; i < 3; i++) await sim.tick();
      await sim.onApplicationShutdown();
      expect(mulberry32).not.toHaveBeenCalled();
      expect(secureRandom).toHaveBeenCalledTimes(simulated.length);

      process.env.MARKET_SIMULATOR_SEED = '42';
      mulberry32.mockClear();
      secureRandom.mockClear();
      await sim.start();
      await sim.onApplicationShutdown();
      expect(mulberry32.mock.calls).toEqual(simulated.map((id) => [42 + id]));
      expect(secureRandom).not.toHaveBeenCalled();
    } finally {
      if (saved === undefined) delete process.env.MARKET_SIMULATOR_SEED;
      else process.env.MARKET_SIMULATOR_SEED = saved;
    }
    await t.app.get(EngineHost).idle();
  });

  it('a quote whose cancel was refused (SEQUENCER_BEHIND) is cancelled at the next requote, not left in the book (regression: its id was dropped)', async () => {
    const sim = t.app.get(SimulatorService);
    const trade = t.app.get(CoinTradeService);
    const host = t.app.get(EngineHost);
    const cancel = trade.cancel.bind(trade);
    let refuse = false;
    const cancels = jest
      .spyOn(trade, 'cancel')
      .mockImplementation((userId, orderId) => (refuse ? Promise.reject(new BusinessError(ErrorCode.SEQUENCER_BEHIND)) : cancel(userId, orderId)));
    const [{ id: maker }] = await t.ds.query(`SELECT id FROM users WHERE email = 'market-maker@simulator.kestrel'`);
    const restingUpTo = async (mark: string) =>
      (await t.ds.query(`SELECT COUNT(*)::int AS n FROM orders WHERE user_id = $1 AND status = 'waiting' AND id <= $2`, [maker, mark]))[0].n;
    // Ticks until the next requote (its cancels, for every market, within one tick).
    const untilRequote = async () => {
      const before = cancels.mock.calls.length;
      for (let i = 0; i < 1000 && cancels.mock.calls.length === before; i++) await sim.tick();
      expect(cancels.mock.calls.length).toBeGreaterThan(before);
    };
    try {
      await sim.start();
      await sim.tick(); // the first requote: quotes in the book
      refuse = true;
      await untilRequote(); // every cancel refused; new quotes beside the old
      refuse = false;
      await host.idle();
      const [{ mark }] = await t.ds.query(`SELECT max(id)::text AS mark FROM orders`);
      expect(await restingUpTo(mark)).toBeGreaterThan(0);
      await untilRequote(); // cancels both runs' quotes
      await sim.onApplicationShutdown();
      await host.idle();
      expect(await restingUpTo(mark)).toBe(0);
    } finally {
      cancels.mockRestore();
      await sim.onApplicationShutdown();
    }
  });
});
