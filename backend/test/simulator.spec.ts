import { EngineHost } from '../src/modules/engine/engine-host.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { SimulatorService, simulatorSeed } from '../src/modules/simulator/simulator.service';
import { registerByEmail } from './support/accounts';
import { deposit } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

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

  it('its seed is a fresh random one on each start unless MARKET_SIMULATOR_SEED fixes it (regression: a fixed, published default)', () => {
    const seeds = new Set(Array.from({ length: 5 }, () => simulatorSeed(undefined)));
    expect([...seeds].every((s) => !s.fixed)).toBe(true);
    expect(new Set([...seeds].map((s) => s.seed)).size).toBeGreaterThan(1);
    expect(simulatorSeed('42')).toEqual({ seed: 42, fixed: true });
    expect(() => simulatorSeed('4e2')).toThrow(/MARKET_SIMULATOR_SEED/);
  });
});
