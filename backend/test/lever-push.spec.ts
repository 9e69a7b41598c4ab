import type { ClientToServerEvents, PositionsData, ServerToClientEvents } from '@kestrel/contracts';
import { AddressInfo } from 'node:net';
import { io, Socket } from 'socket.io-client';
import { EngineBus } from '../src/modules/engine/engine-bus';
import { LeverWatchService } from '../src/modules/lever/lever-watch.service';
import { MarketFeedService } from '../src/modules/realtime/market-feed.service';
import { registerByEmail, setFundPassword } from './support/accounts';
import { deposit } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

type Client = Socket<ServerToClientEvents, ClientToServerEvents>;
const USDT = 3;
const BTC_MARKET = 1;
process.env.MARK_PRICE = 'off';

/** Contract positions pushed over the user's room on mark ticks that change them, and a liquidation as `closed`. */
describe('live contract positions (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let url: string;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await t.close();
  });

  let clock = Date.now() - 3000;
  const tick = async (price: string) => {
    clock = Math.max(clock + 1, Date.now());
    await t.ds.query('INSERT INTO mark_prices (market_id, price, ts) VALUES ($1, $2, $3)', [BTC_MARKET, price, new Date(clock)]);
    t.app.get(EngineBus).emit('mark', [BTC_MARKET]);
  };

  /** A user with 1,000 USDT in the contract account. */
  const contractTrader = async () => {
    const u = await registerByEmail(t);
    await setFundPassword(t, u);
    await deposit(t, u.user.id, USDT, '1000');
    await t.http().post('/api/wallet/change').set('Authorization', u.token).type('form').send({ from: 'coin', to: 'lever', currency_id: USDT, amount: '1000' });
    return u;
  };
  /** 10 lots long at 10× at the market, take profit 70,000, stop loss 50,000. */
  const openLong = (token: string) =>
    t
      .http()
      .post('/api/lever/submit')
      .set('Authorization', token)
      .type('form')
      .send({ symbol: 'BTC/USDT', type: 'market', side: 'long', lots: 10, multiple: 10, take_profit: '70000', stop_loss: '50000' });

  it('pushes P/L and risk on each mark tick that changes them, nothing on one that does not, and a liquidation as closed', async () => {
    await tick('60000');
    await t.app.get(LeverWatchService).watch();
    const u = await contractTrader();

    const pushes: PositionsData[] = [];
    const c: Client = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token: u.token }, reconnection: false });
    clients.push(c);
    c.on('position', (m) => pushes.push(m.data));
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    const until = async (n: number) => {
      for (let i = 0; i < 100 && pushes.length < n; i++) await new Promise((r) => setTimeout(r, 50));
      return pushes[n - 1];
    };
    // The connect push: nothing open yet.
    expect((await until(1)).positions).toEqual([]);

    const opened = await openLong(u.token);
    expect(opened.body.code).toBe(1);
    const first = await until(2);
    expect(first.positions).toHaveLength(1);
    expect(first.positions[0]).toMatchObject({ id: opened.body.data.id, status: 'holding', pnl: '0', liquidation_price: expect.any(String) });

    await tick('61200');
    const moved = await until(3);
    expect(moved.positions[0]).toMatchObject({ current_price: '61200', pnl: '20' });
    expect(moved.closed).toEqual([]);

    // Same price again: nothing changes, nothing is sent.
    await tick('61200');
    await new Promise((r) => setTimeout(r, 600));
    expect(pushes).toHaveLength(3);

    // Below the liquidation price: the watcher closes it and the push says how.
    await tick('54000');
    await t.app.get(LeverWatchService).watch();
    for (let i = 0; i < 100 && !pushes.some((p) => p.closed.length); i++) await new Promise((r) => setTimeout(r, 50));
    const last = pushes.find((p) => p.closed.length)!;
    expect(last.positions).toEqual([]);
    expect(last.closed).toEqual([expect.objectContaining({ id: opened.body.data.id, symbol: 'BTC/USDT', status: 'closed', reason: 'liquidation' })]);
  });

  it('split roles: the process that records the ticks, with no socket of its own, pushes each holder through the adapter (regression: only the holders connected to it, none)', async () => {
    await tick('60000');
    await t.app.get(LeverWatchService).watch();
    const u = await contractTrader();
    const opened = await openLong(u.token);
    expect(opened.body.code).toBe(1);
    const pushes: PositionsData[] = [];
    const c: Client = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token: u.token }, reconnection: false });
    clients.push(c);
    c.on('position', (m) => pushes.push(m.data));
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    for (let i = 0; i < 100 && !pushes.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(pushes[0].positions).toHaveLength(1);
    // As the engine process of split roles: shared pushes, and the user's socket on another process.
    const feed = t.app.get(MarketFeedService) as unknown as { shared: boolean; sockets: Map<number, number> };
    const sockets = new Map(feed.sockets);
    feed.shared = true;
    feed.sockets.clear();
    try {
      await tick('61200');
      for (let i = 0; i < 100 && pushes.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(pushes[1]?.positions[0]).toMatchObject({ id: opened.body.data.id, current_price: '61200', pnl: '20' });
    } finally {
      feed.shared = false;
      for (const [k, v] of sockets) feed.sockets.set(k, v);
    }
  });
});
