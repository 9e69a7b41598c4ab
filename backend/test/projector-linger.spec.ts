import { loadConfig } from '../src/infra/config/config';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { registerByEmail, setFundPassword } from './support/accounts';
import { deposit } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

const USDT = 3;
/** Long enough that a projection before it can only come from a read cutting the linger short. */
const LINGER_MS = 3000;

describe('projector linger (ENGINE_PROJECT_LINGER_MS): batches gather, a waiting read cuts it short', () => {
  let t: TestApp;
  let host: EngineHost;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false, engine: { ...loadConfig().engine, projectLingerMs: LINGER_MS } });
    host = t.app.get(EngineHost);
  });
  afterAll(() => t.close());

  const place = (token: string, price: string) =>
    t.http().post('/api/coin/trade').set('Authorization', token).type('form').send({ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price, quantity: '0.001' });

  it("answers at once; the owner's next read is not held for the linger; without a read the watermark moves after it", async () => {
    const u = await registerByEmail(t);
    await setFundPassword(t, u);
    await deposit(t, u.user.id, USDT, '100');
    await host.idle(); // a waiter: no linger

    const started = Date.now();
    expect((await place(u.token, '10')).body.data).toMatchObject({ status: 'waiting' });
    expect(Date.now() - started).toBeLessThan(LINGER_MS / 2); // acknowledged once journaled, not once projected
    const { journaled } = host.positions;
    await new Promise((r) => setTimeout(r, 200));
    expect(host.positions.projected).toBeLessThan(journaled); // the projector lingers

    // The owner's read waits for the watermark: it asks the projector not to linger.
    const read = Date.now();
    const list = await t.http().get('/api/coin/list').set('Authorization', u.token);
    expect(Date.now() - read).toBeLessThan(LINGER_MS / 2);
    expect(list.body.data.items).toHaveLength(1);
    expect(host.positions.projected).toBeGreaterThanOrEqual(journaled);

    // Nobody waits: projected once the linger has passed.
    const second = Date.now();
    await place(u.token, '11');
    const target = host.positions.journaled;
    while (host.positions.projected < target) await new Promise((r) => setTimeout(r, 20));
    expect(Date.now() - second).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true);
  }, 30_000);
});
