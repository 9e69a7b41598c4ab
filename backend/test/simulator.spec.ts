import { EngineHost } from '../src/modules/engine/engine-host.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { SimulatorService } from '../src/modules/simulator/simulator.service';
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
      (await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries WHERE owner_type = $1 AND owner_id = $2', ['user', id]))[0].n;
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
});
