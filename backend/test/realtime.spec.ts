import type { ClientToServerEvents, Envelope, FeedItem, ServerToClientEvents, SnapshotData, Topic } from '@kestrel/contracts';
import { AddressInfo } from 'node:net';
import { io, Socket } from 'socket.io-client';
import { registerByEmail, setFundPassword } from './support/accounts';
import { deposit } from './support/funding';
import { EngineBus } from '../src/modules/engine/engine-bus';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { MarketDataService } from '../src/modules/market/market-data.service';
import { CONFLATE_MS, MarketFeedService } from '../src/modules/realtime/market-feed.service';
import type { Redis } from 'ioredis';
import type { Server } from 'socket.io';
import { hashToken, TokenService } from '../src/infra/auth/token.service';
import { REDIS } from '../src/infra/redis/redis.module';
import { RealtimeGateway } from '../src/modules/realtime/realtime.gateway';
import { startTestApp, TestApp } from './support/test-app';

type Client = Socket<ServerToClientEvents, ClientToServerEvents>;

describe('Socket.IO push (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let url: string;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await t.close();
  });

  const connect = (token?: string, feed?: 'batch') =>
    new Promise<Client>((resolve, reject) => {
      const c: Client = io(url, {
        path: '/socket.io',
        transports: ['websocket'],
        auth: { ...(token ? { token } : {}), ...(feed ? { feed } : {}) },
        reconnection: false,
      });
      clients.push(c);
      c.once('connect', () => resolve(c));
      c.once('connect_error', reject);
    });

  /** A seller funded with 1 of `base` and a buyer with 100,000 USDT, both with fund passwords. */
  const pair = async (base: number) => {
    const seller = await registerByEmail(t);
    const buyer = await registerByEmail(t);
    await setFundPassword(t, seller);
    await setFundPassword(t, buyer);
    await deposit(t, seller.user.id, base, '1');
    await deposit(t, buyer.user.id, 3, '100000');
    return { seller, buyer };
  };
  const order = (token: string, body: Record<string, string>) => t.http().post('/api/coin/trade').set('Authorization', token).type('form').send(body);
  /** Polls `cond` every 50 ms until it holds, for at most `ms`. */
  const until = async (cond: () => boolean, ms = 5000) => {
    for (const end = Date.now() + ms; !cond() && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    expect(cond()).toBe(true);
  };

  it('snapshot on subscribe, then trades, depth, candles and the owner’s order updates, in sequence', async () => {
    const { seller, buyer } = await pair(1);

    const client = await connect(buyer.token);
    const received: Array<{ event: string; seq: number }> = [];
    const depthMsgs: Envelope<{ bids: string[][]; asks: string[][] }>[] = [];
    const tradeMsgs: Envelope<Array<{ price: string; quantity: string }>>[] = [];
    const orderMsgs: Array<{ seq: number; data: Array<{ status: string }> }> = [];
    const balances: Array<{ data: Array<{ currency_id: number; available: string }> }> = [];
    client.on('depth', (m) => (received.push({ event: 'depth', seq: m.seq }), depthMsgs.push(m as never)));
    client.on('trades', (m) => (received.push({ event: 'trades', seq: m.seq }), tradeMsgs.push(m as never)));
    client.on('kline', (m) => received.push({ event: `kline:${m.topic}`, seq: m.seq }));
    client.on('orders', (m) => orderMsgs.push(m));
    client.on('balance', (m) => balances.push(m));

    const snapshots = (await client.emitWithAck('subscribe', ['tickers', 'depth:BTC/USDT', 'trades:BTC/USDT', 'kline:BTC/USDT:1min'])) as SnapshotData[];
    expect(snapshots.map((s) => s.topic)).toEqual(['tickers', 'depth:BTC/USDT', 'trades:BTC/USDT', 'kline:BTC/USDT:1min']);
    expect(snapshots[1].data).toEqual({ symbol: 'BTC/USDT', bids: [], asks: [] });
    expect(await client.emitWithAck('subscribe', ['depth:NOPE/USDT'])).toEqual({ error: 'unknown market in topic: depth:NOPE/USDT' });
    expect(await client.emitWithAck('subscribe', ['user:1' as never])).toEqual({ error: 'unknown topic: user:1' });

    const btc = { symbol: 'BTC/USDT' };
    await order(seller.token, { ...btc, side: 'sell', type: 'limit', price: '60000', quantity: '0.3' });
    await order(buyer.token, { ...btc, side: 'buy', type: 'limit', price: '60000', quantity: '0.1' });
    await order(buyer.token, { ...btc, side: 'buy', type: 'limit', price: '59000', quantity: '0.2' });

    const orders = () => orderMsgs.flatMap((m) => m.data);
    await until(() => tradeMsgs.length > 0 && depthMsgs.some((d) => d.data.bids.length > 0) && orders().length >= 2 && balances.length > 0);

    expect(tradeMsgs.flatMap((m) => m.data).map((x) => [x.price, x.quantity])).toEqual([['60000', '0.1']]);
    const lastDepth = depthMsgs[depthMsgs.length - 1].data;
    expect(lastDepth).toEqual({ symbol: 'BTC/USDT', bids: [['59000', '0.2']], asks: [['60000', '0.2']] });
    expect(received.some((r) => r.event === 'kline:kline:BTC/USDT:1min')).toBe(true);
    // Per-topic sequence numbers start after the snapshot's and never go backwards.
    for (const topic of ['depth', 'trades']) {
      const seqs = received.filter((r) => r.event === topic).map((r) => r.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(seqs[0]).toBeGreaterThan(snapshots.find((s) => s.topic.startsWith(topic))!.seq);
    }
    // Only the buyer's own orders reach the buyer: one completed, one waiting.
    expect(
      orders()
        .map((o) => o.status)
        .sort(),
    ).toEqual(['completed', 'waiting']);
    expect(orderMsgs.map((m) => m.seq)).toEqual(orderMsgs.map((_, i) => i + 1));
    expect(balances[balances.length - 1].data.find((b) => b.currency_id === 1)).toMatchObject({ available: '0.0999' });

    const visitor = await connect();
    const seen: string[] = [];
    visitor.on('orders', () => seen.push('orders'));
    await order(buyer.token, { ...btc, side: 'buy', type: 'limit', price: '58000', quantity: '0.1' });
    await new Promise((r) => setTimeout(r, 400));
    expect(seen).toEqual([]);
  });
  it('the order changes of one step come in one message, in the order they happened', async () => {
    const { seller, buyer } = await pair(1);
    const client = await connect(seller.token);
    const msgs: Array<{ seq: number; data: Array<{ order_id: string; status: string; filled_qty: string }> }> = [];
    client.on('orders', (m) => msgs.push(m));
    // Five resting asks above the book (best is 60000), then one buy that takes every ask up to them in one command.
    const asks: string[] = [];
    for (const price of ['61000', '61100', '61200', '61300', '61400']) {
      const r = await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price, quantity: '0.01' });
      expect(r.body.data.status).toBe('waiting');
      asks.push(String(r.body.data.order_id));
    }
    await until(() => msgs.flatMap((m) => m.data).length >= 5);
    const before = msgs.length;
    const buy = await order(buyer.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '61400', quantity: '0.25' });
    expect(buy.body.data.status).toBe('completed');
    await until(() => msgs.length > before);
    await new Promise((r) => setTimeout(r, 300));
    // The seller's five fills: one message, best price first (the buyer's order and the other seller's are not this seller's business).
    expect(msgs.slice(before)).toHaveLength(1);
    expect(msgs[before].data.map((o) => [o.order_id, o.status, o.filled_qty])).toEqual(asks.map((id) => [id, 'completed', '0.01']));
    expect(msgs.map((m) => m.seq)).toEqual(msgs.map((_, i) => i + 1));
  });
  it('a dropped socket comes back as a new one; subscribing again gives the trade it missed and the topic goes on in sequence', async () => {
    const { seller, buyer } = await pair(2);
    const c: Client = io(url, { path: '/socket.io', transports: ['websocket'], reconnectionDelay: 1000, reconnectionDelayMax: 1000, randomizationFactor: 0 });
    clients.push(c);
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    const trades: Array<{ seq: number; data: Array<{ price: string; quantity: string }> }> = [];
    c.on('trades', (m) => trades.push(m as never));
    const first = ((await c.emitWithAck('subscribe', ['trades:ETH/USDT'])) as SnapshotData[])[0];
    const eth = { symbol: 'ETH/USDT' };
    const trade = async (price: string) => {
      expect((await order(seller.token, { ...eth, side: 'sell', type: 'limit', price, quantity: '0.1' })).body.code).toBe(1);
      expect((await order(buyer.token, { ...eth, side: 'buy', type: 'limit', price, quantity: '0.1' })).body.code).toBe(1);
    };
    await trade('3000');
    await until(() => trades.length === 1);
    expect(trades[0].seq).toBe(first.seq + 1);
    // The connection drops (not a client's disconnect); a trade while nobody here watches the topic.
    const dropped = new Promise<void>((resolve) => c.once('disconnect', () => resolve()));
    (c.io.engine as unknown as { close(): void }).close();
    await dropped;
    await new Promise((r) => setTimeout(r, 100));
    await trade('3001');
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    expect(c.recovered).toBeFalsy();
    const again = ((await c.emitWithAck('subscribe', ['trades:ETH/USDT'])) as SnapshotData[])[0];
    expect((again.data as Array<{ price: string }>).map((x) => x.price).slice(-2)).toEqual(['3000', '3001']);
    // No message was built for the unwatched cycle, so the next one follows the snapshot's number.
    expect(again.seq).toBe(first.seq + 1);
    await trade('3002');
    await until(() => trades.length === 2);
    expect(trades[1]).toMatchObject({ seq: again.seq + 1, data: [{ price: '3002', quantity: '0.1' }] });
  });

  it('a balance push whose cycle failed (the database away a moment) goes out in a later cycle (regression: it was dropped until the next change)', async () => {
    const u = await registerByEmail(t);
    await deposit(t, u.user.id, 3, '100');
    const c = await connect(u.token);
    await new Promise((r) => setTimeout(r, 300)); // in the user's room
    const heard: Array<Array<{ available: string }>> = [];
    c.on('balance', (m) => heard.push(m.data));
    const real = t.ds.query.bind(t.ds);
    let failed = 0;
    const spy = jest.spyOn(t.ds, 'query').mockImplementation(async (...args: Parameters<typeof real>) => {
      if (!failed && String(args[0]).includes("FROM balances WHERE owner_type = 'user' AND owner_id = ANY($1)")) {
        failed++;
        throw new Error('connection terminated');
      }
      return real(...args);
    });
    try {
      t.app.get(EngineBus).emit('balance', u.user.id);
      await until(() => failed === 1 && heard.length > 0);
      expect(heard.at(-1)).toEqual([expect.objectContaining({ available: '100' })]);
    } finally {
      spy.mockRestore();
    }
  });

  it('a transfer between accounts pushes the owner its new balances', async () => {
    const u = await registerByEmail(t);
    await deposit(t, u.user.id, 3, '100');
    const c = await connect(u.token);
    const pushed = new Promise<Array<{ account_type: string; available: string }>>((resolve) => c.on('balance', (m) => resolve(m.data)));
    const r = await t
      .http()
      .post('/api/wallet/change')
      .set('Authorization', u.token)
      .type('form')
      .send({ from: 'coin', to: 'lever', currency_id: 3, amount: '40' });
    expect(r.body.code).toBe(1);
    const balances = await pushed;
    expect(balances.find((b) => b.account_type === 'lever')).toMatchObject({ available: '40' });
  });

  it('a refused subscribe leaves the socket following what it followed before (regression: the topics before the bad one stayed joined)', async () => {
    const { seller, buyer } = await pair(2);
    const refused = await connect();
    const reference = await connect();
    const got: string[] = [];
    refused.on('trades', () => got.push('refused'));
    reference.on('trades', () => got.push('reference'));
    expect(await refused.emitWithAck('subscribe', ['trades:ETH/USDT', 'depth:NOPE/USDT'])).toEqual({ error: 'unknown market in topic: depth:NOPE/USDT' });
    expect(await refused.emitWithAck('subscribe', ['trades:ETH/USDT', 'user:1'] as never)).toEqual({ error: 'unknown topic: user:1' });
    expect(await refused.emitWithAck('subscribe', ['trades:ETH/USDT', { toString: 1 }] as never)).toEqual({ error: 'unknown topic: {"toString":1}' });
    await reference.emitWithAck('subscribe', ['trades:ETH/USDT']);
    const eth = { symbol: 'ETH/USDT', type: 'limit', price: '3100', quantity: '0.1' };
    expect((await order(seller.token, { ...eth, side: 'sell' })).body.code).toBe(1);
    expect((await order(buyer.token, { ...eth, side: 'buy' })).body.code).toBe(1);
    await until(() => got.includes('reference'));
    await new Promise((r) => setTimeout(r, 400));
    expect(got).toEqual(['reference']);
  });

  it('a batched socket (auth.feed = batch) gets each cycle in one feed event: the same messages, seqs and data as the per-topic events', async () => {
    const { seller, buyer } = await pair(2);
    const topics = ['depth:ETH/USDT', 'trades:ETH/USDT', 'tickers'] as const;
    const plain = await connect();
    const batched = await connect(undefined, 'batch');
    const single: Array<[string, Envelope<unknown>]> = [];
    const feeds: FeedItem[][] = [];
    const stray: string[] = [];
    for (const e of ['depth', 'trades', 'tickers'] as const) {
      plain.on(e, (m: Envelope<unknown>) => single.push([e, m]));
      batched.on(e, () => stray.push(e));
    }
    batched.on('feed', (items) => feeds.push(items));
    const plainSnaps = (await plain.emitWithAck('subscribe', [...topics])) as SnapshotData[];
    const batchSnaps = (await batched.emitWithAck('subscribe', [...topics])) as SnapshotData[];
    expect(batchSnaps.map((s) => s.topic)).toEqual([...topics]);
    expect(batchSnaps.map((s) => s.seq)).toEqual(plainSnaps.map((s) => s.seq));
    // A second subscribe of a topic it follows changes nothing; an unknown market is refused and leaves the set as it was.
    expect(((await batched.emitWithAck('subscribe', ['tickers'])) as SnapshotData[]).map((s) => s.topic)).toEqual(['tickers']);
    expect(await batched.emitWithAck('subscribe', ['depth:NOPE/USDT'])).toEqual({ error: 'unknown market in topic: depth:NOPE/USDT' });

    const eth = { symbol: 'ETH/USDT' };
    expect((await order(seller.token, { ...eth, side: 'sell', type: 'limit', price: '3000', quantity: '0.5' })).body.code).toBe(1);
    expect((await order(buyer.token, { ...eth, side: 'buy', type: 'limit', price: '3000', quantity: '0.2' })).body.code).toBe(1);
    const fed = () => feeds.flat();
    await until(() => fed().some(([e]) => e === 'trades') && fed().some(([e, m]) => e === 'depth' && (m.data as { asks: unknown[] }).asks.length > 0));
    await new Promise((r) => setTimeout(r, 500)); // both clients have had the same cycles
    // Every cycle is one event, every message of the plain socket is in it, in the same order.
    expect(stray).toEqual([]);
    expect(fed().map(([e, m]) => [e, m.topic, m.seq, m.data])).toEqual(single.map(([e, m]) => [e, m.topic, m.seq, m.data]));
    for (const items of feeds) expect(new Set(items.map(([, m]) => m.topic)).size).toBe(items.length);
    expect(
      fed()
        .flatMap(([e, m]) => (e === 'trades' ? (m.data as Array<{ price: string; quantity: string }>) : []))
        .map((x) => [x.price, x.quantity]),
    ).toEqual([['3000', '0.2']]);

    // Unsubscribed topics stop; the others go on.
    await batched.emitWithAck('unsubscribe', ['depth:ETH/USDT', 'tickers']);
    feeds.length = 0;
    single.length = 0;
    expect((await order(buyer.token, { ...eth, side: 'buy', type: 'limit', price: '3000', quantity: '0.1' })).body.code).toBe(1);
    await until(() => single.some(([e]) => e === 'trades'));
    await new Promise((r) => setTimeout(r, 400));
    expect(fed().map(([, m]) => m.topic)).toEqual(single.filter(([, m]) => m.topic === 'trades:ETH/USDT').map(([, m]) => m.topic));
    expect(fed().length).toBeGreaterThan(0);
  });

  /**
   * A client following `topic`'s candles, with the feed's cycles this test's: its timer is paused
   * (what earlier tests left is sent first, then forgotten), `body` runs them, and the timer resumes.
   */
  async function candlesOf<T>(topic: Topic, body: (candles: T[], feed: MarketFeedService, host: EngineHost) => Promise<void>) {
    const feed = t.app.get(MarketFeedService);
    const host = t.app.get(EngineHost);
    const client = await connect();
    const candles: T[] = [];
    client.on('kline', (m) => void (m.topic === topic && candles.push(m as never)));
    await client.emitWithAck('subscribe', [topic]);
    const timer = feed as unknown as { timer: NodeJS.Timeout };
    clearInterval(timer.timer);
    try {
      await host.idle();
      await feed.publish();
      await new Promise((r) => setTimeout(r, 200));
      candles.length = 0;
      await body(candles, feed, host);
    } finally {
      timer.timer = setInterval(() => void feed.publish(), CONFLATE_MS);
    }
  }

  it('a cycle whose trades cross a minute boundary sends the finished candle, with its last trade, before the new one', async () => {
    const { seller, buyer } = await pair(1);
    type Candle = { seq: number; data: { time: number; close: string; volume: string } };
    await candlesOf<Candle>('kline:BTC/USDT:1min', async (candles, feed, host) => {
      // Two trades 100 ms apart, on either side of a minute boundary (the batch time is the clock's).
      const boundary = Math.ceil(Date.now() / 60_000) * 60_000 + 120_000;
      await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '70000', quantity: '0.1' });
      await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '70100', quantity: '0.1' });
      const clock = jest.spyOn(Date, 'now');
      try {
        clock.mockReturnValue(boundary - 50);
        expect((await order(buyer.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '70000', quantity: '0.1' })).body.data.status).toBe(
          'completed',
        );
        clock.mockReturnValue(boundary + 50);
        expect((await order(buyer.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '70100', quantity: '0.1' })).body.data.status).toBe(
          'completed',
        );
      } finally {
        clock.mockRestore();
      }
      await host.idle();
      await feed.publish(); // one cycle for both trades
      await until(() => candles.length >= 2);
      // Regression: only the newest candle was sent, so the finished one never got its last trade live.
      expect(candles.map((c) => [c.data.time, c.data.close, c.data.volume])).toEqual([
        [(boundary - 60_000) / 1000, '70000', '0.1'],
        [boundary / 1000, '70100', '0.1'],
      ]);
      expect(candles[1].seq).toBe(candles[0].seq + 1);
    });
  });

  it('a batch the projector reported before this process applied it still sends its candle (regression: it waited for a later batch, for ever without one)', async () => {
    const { seller, buyer } = await pair(1);
    type Candle = { data: { close: string } };
    await candlesOf<Candle>('kline:BTC/USDT:1min', async (candles, feed, host) => {
      await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '72000', quantity: '0.1' });
      await host.idle();
      // The journal write's answer comes only once the projector has projected the batch (it reads the journal's head too).
      const append = host.journal.append.bind(host.journal);
      jest.spyOn(host.journal, 'append').mockImplementationOnce(async (batch, token) => {
        await append(batch, token);
        for (const end = Date.now() + 5000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
          const [{ seq }] = await t.ds.query('SELECT seq FROM sequencer_projection WHERE id = 1');
          if (Number(seq) >= batch.seq) return;
        }
        throw new Error('not projected');
      });
      expect((await order(buyer.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '72000', quantity: '0.1' })).body.data.status).toBe(
        'completed',
      );
      await host.idle();
      await feed.publish();
      await until(() => candles.length >= 1, 2000);
      expect(candles.at(-1)!.data.close).toBe('72000');
    });
  });

  it('after a rebuild from the journal, the current candles are sent again (regression: the batches it projected were never pushed, and an open chart kept the bar without their trades)', async () => {
    const { seller, buyer } = await pair(1);
    await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '71000', quantity: '0.1' });
    expect((await order(buyer.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '71000', quantity: '0.1' })).body.data.status).toBe('completed');
    await candlesOf<{ data: { close: string } }>('kline:BTC/USDT:1day', async (candles, feed, host) => {
      await host.recover();
      await feed.publish();
      await until(() => candles.length >= 1);
      expect(candles.at(-1)!.data.close).toBe('71000');
    });
  });

  it('a trade sent before a subscriber joined and not yet projected is in its snapshot (regression: the snapshot read only the table)', async () => {
    const { seller, buyer } = await pair(1);
    const host = t.app.get(EngineHost);
    await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '80000', quantity: '0.1' });
    await host.idle();
    // The projector is held: the trade is journaled, answered and pushed, not yet in the trades table.
    const real = host.projector.project.bind(host.projector);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = jest.spyOn(host.projector, 'project').mockImplementation(async (...args) => {
      await gate;
      return real(...args);
    });
    try {
      const buy = await order(buyer.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '80000', quantity: '0.1' });
      expect(buy.body.data.status).toBe('completed');
      await new Promise((r) => setTimeout(r, 500)); // a few push cycles
      const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM trades WHERE price = 80000`);
      expect(n).toBe(0);
      const visitor = await connect();
      const [snap] = (await visitor.emitWithAck('subscribe', ['trades:BTC/USDT'])) as SnapshotData[];
      const trades = snap.data as Array<{ trade_id: string; price: string; quantity: string }>;
      expect(trades[trades.length - 1]).toMatchObject({ price: '80000', quantity: '0.1' });
      expect(trades.map((x) => Number(x.trade_id))).toEqual([...trades.map((x) => Number(x.trade_id))].sort((a, b) => a - b));
    } finally {
      release();
      held.mockRestore();
    }
    await host.idle();
  });

  it('a trade projected while its message waits for the next cycle is in the snapshot or in a later message, not both (regression: the snapshot took it from the table, the next message sent it again)', async () => {
    const { seller, buyer } = await pair(1);
    const feed = t.app.get(MarketFeedService);
    const host = t.app.get(EngineHost);
    expect((await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '59500', quantity: '0.1' })).body.data.status).toBe('waiting');
    await host.idle();
    const visitor = await connect();
    const msgs: Array<{ seq: number; data: Array<{ trade_id: string; price: string }> }> = [];
    visitor.on('trades', (m) => msgs.push(m as never));
    // The push cycles are held: the trade is journaled and projected, its message not built yet.
    const held = jest.spyOn(feed, 'publish').mockResolvedValue();
    let snap: SnapshotData;
    try {
      await new Promise((r) => setTimeout(r, 2 * CONFLATE_MS)); // a cycle already under way has ended
      const buy = await order(buyer.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '59500', quantity: '0.1' });
      expect(buy.body.data.status).toBe('completed');
      await host.idle();
      const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM trades WHERE price = 59500`);
      expect(n).toBe(1);
      [snap] = (await visitor.emitWithAck('subscribe', ['trades:BTC/USDT'])) as SnapshotData[];
    } finally {
      held.mockRestore();
    }
    const snapshotted = (snap.data as Array<{ trade_id: string; price: string }>).map((x) => x.trade_id);
    const later = () => msgs.filter((m) => m.seq > snap.seq).flatMap((m) => m.data);
    await until(() => [...(snap.data as Array<{ price: string }>), ...later()].some((x) => x.price === '59500'));
    await new Promise((r) => setTimeout(r, 2 * CONFLATE_MS));
    // Applying the later messages only (docs/api.md), a client shows each trade once.
    expect(later().filter((x) => snapshotted.includes(x.trade_id))).toEqual([]);
    expect([...(snap.data as Array<{ price: string }>), ...later()].filter((x) => x.price === '59500')).toHaveLength(1);
    expect(msgs.map((m) => m.seq)).toEqual(msgs.map((_, i) => snap.seq + 1 + i));
  });

  it('a cycle with a failed query still sends its other messages, and what failed comes on the next cycle (regression: the whole cycle was dropped and its trades message lost)', async () => {
    const { seller, buyer } = await pair(1);
    const feed = t.app.get(MarketFeedService);
    const host = t.app.get(EngineHost);
    const data = t.app.get(MarketDataService);
    const client = await connect();
    const got: Array<{ event: string; seq: number; data: unknown }> = [];
    client.on('trades', (m) => got.push({ event: 'trades', seq: m.seq, data: m.data }));
    client.on('kline', (m) => got.push({ event: 'kline', seq: m.seq, data: m.data }));
    client.on('tickers', (m) => got.push({ event: 'tickers', seq: m.seq, data: m.data }));
    const of = (event: string) => got.filter((m) => m.event === event);
    // The cycles are this test's: the feed's timer is paused, what earlier tests left is sent now.
    const timer = feed as unknown as { timer: NodeJS.Timeout; candlesSince: (marketId: number, from: number) => Promise<unknown> };
    clearInterval(timer.timer);
    const realTickers = data.tickers.bind(data);
    let tickersDown = true;
    const tickers = jest.spyOn(data, 'tickers');
    const candles = jest.spyOn(timer, 'candlesSince');
    try {
      await host.idle();
      await new Promise((r) => setTimeout(r, 2 * CONFLATE_MS)); // a cycle already under way has ended
      await feed.publish();
      const snaps = (await client.emitWithAck('subscribe', ['trades:BTC/USDT', 'kline:BTC/USDT:1min', 'tickers'])) as SnapshotData[];
      // Once each: the feed's fresh tickers read and its candle query fail.
      tickers.mockImplementation(async (fresh) => {
        if (fresh && tickersDown) {
          tickersDown = false;
          throw new Error('tickers read failed');
        }
        return realTickers(fresh);
      });
      candles.mockRejectedValueOnce(new Error('candle read failed'));
      const trade = async (price: string) => {
        expect((await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price, quantity: '0.1' })).body.data.status).toBe('waiting');
        expect((await order(buyer.token, { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price, quantity: '0.1' })).body.data.status).toBe('completed');
        await host.idle();
      };
      await trade('59700');
      await feed.publish(); // its candle and tickers fail
      await until(() => of('trades').length === 1);
      await new Promise((r) => setTimeout(r, 200));
      expect(tickersDown).toBe(false);
      expect(candles).toHaveBeenCalled();
      expect(got.map((m) => m.event)).toEqual(['trades']);
      expect(got[0]).toMatchObject({ seq: snaps[0].seq + 1, data: [{ price: '59700', quantity: '0.1' }] });

      await feed.publish(); // what failed, again
      await until(() => of('kline').length > 0 && of('tickers').length > 0);
      expect(of('kline').at(-1)).toMatchObject({ seq: snaps[1].seq + 1, data: { close: '59700' } });
      expect(of('tickers').at(-1)).toMatchObject({ seq: snaps[2].seq + 1 });
      expect((of('tickers').at(-1)!.data as Array<{ symbol: string; last: string }>).find((x) => x.symbol === 'BTC/USDT')).toMatchObject({ last: '59700' });

      await trade('59800');
      await feed.publish();
      await until(() => of('trades').length === 2);
      // No sequence number was skipped: the first trades message was sent, not lost.
      expect(of('trades')).toMatchObject([
        { seq: snaps[0].seq + 1, data: [{ price: '59700' }] },
        { seq: snaps[0].seq + 2, data: [{ price: '59800' }] },
      ]);
    } finally {
      tickers.mockRestore();
      candles.mockRestore();
      timer.timer = setInterval(() => void feed.publish(), CONFLATE_MS);
    }
  });

  it('the tickers are recomputed at least once a minute without trades (their 24 h window moves on)', async () => {
    const data = t.app.get(MarketDataService);
    await t.app.get(EngineHost).idle();
    await new Promise((r) => setTimeout(r, 400)); // what earlier trades made due is sent
    const tickers = jest.spyOn(data, 'tickers');
    const later = Date.now() + 61_000;
    const clock = jest.spyOn(Date, 'now').mockReturnValue(later);
    try {
      // Regression: with no trade nothing made them due, so a quiet market kept day-old figures.
      await until(() => tickers.mock.calls.some(([fresh]) => fresh === true));
    } finally {
      clock.mockRestore();
      tickers.mockRestore();
    }
  });

  /** The server's side of a client's socket (this process's). */
  const serverSide = (c: Client) => (t.app.get(MarketFeedService) as unknown as { server: Server }).server.of('/').sockets.get(c.id!);

  it('a topic is joined by its canonical name however spelled: one room per topic, and a lower-case subscriber gets the live depth (regression: a room per spelling, then silence)', async () => {
    const { seller } = await pair(1);
    const plain = await connect();
    const batched = await connect(undefined, 'batch');
    const depth: Array<{ topic: string; asks: string[][] }> = [];
    const fed: Array<{ topic: string; asks: string[][] }> = [];
    plain.on('depth', (m) => depth.push({ topic: m.topic, ...(m.data as { asks: string[][] }) }));
    batched.on('feed', (items) => {
      for (const [e, m] of items) if (e === 'depth') fed.push({ topic: m.topic, ...(m.data as { asks: string[][] }) });
    });
    // Fifty spellings, none the canonical one, one subscribe each: more than a socket may follow.
    const spellings = [
      'depth:btcusdt',
      'depth:B.TC/USDT',
      'depth:BTC--USDT',
      'depth:btc_usdt',
      ...Array.from({ length: 46 }, (_, i) => `depth:b${'.'.repeat(i + 1)}tc/usdt`),
    ];
    for (const c of [plain, batched])
      for (const spelled of spellings)
        expect(((await c.emitWithAck('subscribe', [spelled as never])) as SnapshotData[]).map((x) => x.topic)).toEqual(['depth:BTC/USDT']);
    expect([...serverSide(plain)!.rooms].sort()).toEqual(['depth:BTC/USDT', plain.id].sort());
    expect([...serverSide(batched)!.rooms].sort()).toEqual(['feed:depth:BTC/USDT', batched.id].sort());
    expect(serverSide(batched)!.data.topics).toEqual(['depth:BTC/USDT']);

    expect((await order(seller.token, { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '95000', quantity: '0.01' })).body.data.status).toBe('waiting');
    const rests = (m: { asks: string[][] }) => m.asks.some(([price]) => price === '95000');
    await until(() => depth.some(rests) && fed.some(rests));
    expect(new Set([...depth, ...fed].map((m) => m.topic))).toEqual(new Set(['depth:BTC/USDT']));
    // Left by any spelling too.
    await plain.emitWithAck('unsubscribe', ['depth:Btc-Usdt' as never]);
    await batched.emitWithAck('unsubscribe', ['depth:btc.usdt' as never]);
    expect([...serverSide(plain)!.rooms]).toEqual([plain.id]);
    expect([...serverSide(batched)!.rooms]).toEqual([batched.id]);
  });

  /** Users with a connected socket counted online on this process (MarketFeedService: fills build their messages only for them). */
  const online = () => (t.app.get(MarketFeedService) as unknown as { sockets: Map<number, number> }).sockets;
  /** This process's sockets (the server's side). */
  const local = () => (t.app.get(MarketFeedService) as unknown as { server: Server }).server.of('/').sockets;
  /** The periodic re-check off: what a test checks is done by something else (the expiry's timer, the sweep). */
  const withoutRecheck = async (body: () => Promise<void>) => {
    const recheck = jest.spyOn(t.app.get(RealtimeGateway) as unknown as { recheck: () => Promise<void> }, 'recheck').mockResolvedValue();
    try {
      await body();
    } finally {
      recheck.mockRestore();
    }
  };
  /** A client disconnects and its server side is gone (its handleDisconnect has run). */
  const disconnected = async (c: Client) => {
    const id = c.id!;
    c.disconnect();
    await until(() => !local().has(id));
  };

  it("a socket whose token expires hears no more private pushes: it leaves the user's room at the expiry, stops counting online and stays connected", async () => {
    const u = await registerByEmail(t);
    await deposit(t, u.user.id, 3, '100');
    // The expiry alone, not the periodic re-check (tested below), takes the socket out.
    await withoutRecheck(async () => {
      // Issued once the account is set up, to live long enough for the connects and a first push on a slow machine.
      const short = await t.app.get(TokenService).issue('user', u.user.id, 8);
      const [{ expires_ms: expiresAt }] = await t.ds.query(
        `SELECT (EXTRACT(EPOCH FROM expires_at) * 1000)::float8 AS expires_ms FROM auth_tokens WHERE token_hash = $1`,
        [hashToken(short)],
      );
      const expiring = await connect(short);
      const staying = await connect(u.token);
      const heard: number[] = [];
      const stayed: number[] = [];
      expiring.on('balance', () => heard.push(Date.now()));
      staying.on('balance', () => stayed.push(Date.now()));
      const transfer = async () =>
        expect(
          (
            await t
              .http()
              .post('/api/wallet/change')
              .set('Authorization', u.token)
              .type('form')
              .send({ from: 'coin', to: 'lever', currency_id: 3, amount: '1' })
          ).body.code,
        ).toBe(1);
      await until(() => online().get(u.user.id) === 2);
      await transfer();
      await until(() => heard.length === 1 && stayed.length === 1);
      // Waited for, not slept: out of the room at the expiry, not before.
      await until(() => !serverSide(expiring)!.rooms.has(`user:${u.user.id}`), expiresAt + 3000 - Date.now());
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
      // Regression: it still counted online, so the user's fills kept building messages for nobody.
      expect(online().get(u.user.id)).toBe(1);
      await transfer();
      await until(() => stayed.length === 2);
      await new Promise((r) => setTimeout(r, 300));
      expect(heard).toHaveLength(1);
      expect(expiring.connected).toBe(true);
      // Counted off once: its disconnect takes nothing more off.
      await disconnected(expiring);
      expect(online().get(u.user.id)).toBe(1);
      await disconnected(staying);
      expect(online().has(u.user.id)).toBe(false);
    });
  });

  it('a logout takes its sockets out of the private rooms at once (the sweep, on this process) and they stop counting online; another session stays', async () => {
    const u = await registerByEmail(t);
    await withoutRecheck(async () => {
      const other = await t.app.get(TokenService).issue('user', u.user.id, 3600);
      const out = await connect(u.token);
      const stays = await connect(other);
      await until(() => online().get(u.user.id) === 2);
      expect((await t.http().post('/api/user/logout').set('Authorization', u.token)).body.code).toBe(1);
      await until(() => !serverSide(out)!.rooms.has(`user:${u.user.id}`));
      expect(serverSide(stays)!.rooms.has(`user:${u.user.id}`)).toBe(true);
      expect(online().get(u.user.id)).toBe(1);
      await disconnected(out);
      expect(online().get(u.user.id)).toBe(1);
      await disconnected(stays);
      expect(online().has(u.user.id)).toBe(false);
    });
  });

  it("a socket another process's sweep took out of its user's room stops counting online at this process's next re-check", async () => {
    const u = await registerByEmail(t);
    const out = await connect(u.token);
    const stays = await connect(u.token);
    await until(() => online().get(u.user.id) === 2);
    // What the adapter does here for a sweep on another process: the room is left; the socket's data is not the sweep's to change.
    await serverSide(out)!.leave(`user:${u.user.id}`);
    await until(() => online().get(u.user.id) === 1);
    expect(serverSide(stays)!.rooms.has(`user:${u.user.id}`)).toBe(true);
    await disconnected(out);
    expect(online().get(u.user.id)).toBe(1);
  });

  it('a token revoked without the sweep (as on another process, or a failed fetchSockets) is caught by the periodic re-check: the socket leaves its private room and stops counting online', async () => {
    const revoked = await registerByEmail(t);
    const kept = await registerByEmail(t);
    const out = await connect(revoked.token);
    const stays = await connect(kept.token);
    await until(() => online().has(revoked.user.id) && online().has(kept.user.id));
    await until(() => serverSide(out)!.rooms.has(`user:${revoked.user.id}`) && serverSide(stays)!.rooms.has(`user:${kept.user.id}`));
    // Straight in the database: no sweep runs, and a process's token cache may still trust the token.
    await t.ds.query(`UPDATE auth_tokens SET revoked_at = now() WHERE token_hash = $1`, [hashToken(revoked.token)]);
    await until(() => !serverSide(out)!.rooms.has(`user:${revoked.user.id}`));
    expect(out.connected).toBe(true);
    expect(online().has(revoked.user.id)).toBe(false);
    // Another re-check, seen to the end: it read the token that stays valid, and kept its socket.
    const sessions = jest.spyOn(t.app.get(TokenService), 'sessions');
    try {
      const reread = () => sessions.mock.calls.findIndex(([list]) => list.includes(kept.token));
      await until(() => reread() >= 0);
      await sessions.mock.results[reread()].value;
      await new Promise((r) => setImmediate(r)); // its sockets dropped (or not), right after the read
    } finally {
      sessions.mockRestore();
    }
    expect(serverSide(stays)!.rooms.has(`user:${kept.user.id}`)).toBe(true);
    expect(online().get(kept.user.id)).toBe(1);
  });

  it('a client that disconnects while its token is looked up is not counted online and is in no room (regression: the count stayed up for good)', async () => {
    const u = await registerByEmail(t);
    const tokens = t.app.get(TokenService);
    const real = tokens.session.bind(tokens);
    let asked!: () => void;
    const looking = new Promise<void>((r) => (asked = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = jest.spyOn(tokens, 'session').mockImplementation(async (...args) => {
      asked();
      await gate;
      return real(...args);
    });
    // What a connection does after the lookup (joins the room, checks the token again).
    const verify = jest.spyOn(tokens, 'verify');
    try {
      // Not connected yet: the connection is accepted once its session is read.
      const c: Client = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token: u.token }, reconnection: false });
      clients.push(c);
      await looking;
      const lookup = held.mock.results[0].value as Promise<unknown>;
      const engineId = c.io.engine.id;
      c.disconnect();
      const engine = (t.app.get(MarketFeedService) as unknown as { server: Server }).server.engine as unknown as { clients: Record<string, unknown> };
      await until(() => !(engineId in engine.clients));
      release();
      // Seen to the end, not slept on: the lookup answered, then whatever the connection did after it.
      await lookup;
      await new Promise((r) => setImmediate(r));
      await Promise.all(verify.mock.results.map((r) => r.value));
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      release();
      held.mockRestore();
      verify.mockRestore();
    }
    expect(online().has(u.user.id)).toBe(false);
    const server = (t.app.get(MarketFeedService) as unknown as { server: Server }).server;
    expect(server.of('/').adapter.rooms.get(`user:${u.user.id}`)?.size ?? 0).toBe(0);
  });

  it("a user's socket is in its private room when its client hears `connect`: a push right after it arrives (regression: the room was joined after the session lookup, after `connect`, and such a push was lost)", async () => {
    const u = await registerByEmail(t);
    await deposit(t, u.user.id, 3, '100');
    const tokens = t.app.get(TokenService);
    const real = tokens.session.bind(tokens);
    // A slow session lookup (a cold cache, a busy database): the window the client could not see.
    const slow = jest.spyOn(tokens, 'session').mockImplementation(async (...args) => {
      await new Promise((r) => setTimeout(r, 200));
      return real(...args);
    });
    try {
      const c = await connect(u.token);
      const heard = new Promise<Array<{ available: string }>>((resolve) => c.on('balance', (m) => resolve(m.data)));
      // What the app does on `connect`: it reads its balances (a change before this read is in it; one
      // after it is pushed). The push stands for a change made just after the read.
      t.app.get(EngineBus).emit('balance', u.user.id);
      const nothing = new Promise<string>((r) => setTimeout(() => r('nothing within 3 s'), 3000));
      expect(await Promise.race([heard, nothing])).toEqual([expect.objectContaining({ available: '100' })]);
      expect(online().get(u.user.id)).toBe(1);
    } finally {
      slow.mockRestore();
    }
  });

  it('the topics of a market disabled at run time can still be left, by any spelling (regression: they stayed joined, counted against the cap)', async () => {
    const host = t.app.get(EngineHost);
    await t.ds.query(
      `INSERT INTO markets (symbol, base_currency_id, quote_currency_id, tick_size, lot_size, min_qty, maker_fee, taker_fee, sort)
       SELECT 'ETH/BTC', e.id, b.id, '0.00001', '0.001', '0.001', '0.001', '0.001', 99 FROM coins e, coins b WHERE e.symbol = 'ETH' AND b.symbol = 'BTC'`,
    );
    await host.marketsChanged();
    const plain = await connect();
    const batched = await connect(undefined, 'batch');
    for (const c of [plain, batched])
      expect(((await c.emitWithAck('subscribe', ['depth:ETH/BTC', 'trades:eth_btc', 'depth:BTC/USDT'])) as SnapshotData[]).map((x) => x.topic)).toEqual([
        'depth:ETH/BTC',
        'trades:ETH/BTC',
        'depth:BTC/USDT',
      ]);
    await t.ds.query(`UPDATE markets SET enabled = false WHERE symbol = 'ETH/BTC'`);
    await host.marketsChanged();
    expect(await plain.emitWithAck('subscribe', ['depth:ETH/BTC'])).toEqual({ error: 'unknown market in topic: depth:ETH/BTC' });
    for (const c of [plain, batched]) await c.emitWithAck('unsubscribe', ['depth:eth-btc', 'trades:ETH/BTC']);
    expect([...serverSide(plain)!.rooms].sort()).toEqual(['depth:BTC/USDT', plain.id].sort());
    expect([...serverSide(batched)!.rooms].sort()).toEqual(['feed:depth:BTC/USDT', batched.id].sort());
    expect(serverSide(batched)!.data.topics).toEqual(['depth:BTC/USDT']);
  });

  describe('split roles (a process that does not hold the books)', () => {
    const internals = () =>
      t.app.get(MarketFeedService) as unknown as {
        shared: boolean;
        candlesReady: Map<number, number>;
        candlesDue: Map<number, unknown>;
        newTrades: Map<number, unknown>;
      };
    let owner: jest.SpyInstance;
    beforeEach(() => {
      owner = jest.spyOn(t.app.get(EngineHost), 'owner', 'get').mockReturnValue(false);
      internals().shared = true;
    });
    afterEach(() => {
      internals().shared = false;
      owner.mockRestore();
    });

    it('keeps nothing to send on a later take-over (else a day of candles would go out at once)', async () => {
      const feed = internals();
      feed.candlesReady.set(1, Date.now() - 86_400_000);
      feed.candlesDue.set(1, [[1e12, Date.now()]]);
      await until(() => (void t.app.get(MarketFeedService).publish(), feed.candlesReady.size === 0 && feed.candlesDue.size === 0));
    });

    it("a trades snapshot carries the seq of the last message it received, with that message's trades (not the shared counter's, one ahead)", async () => {
      const feed = t.app.get(MarketFeedService);
      const topic = 'trades:ETH/USDT' as const;
      const trade = { trade_id: '990000001', price: '3100', quantity: '0.5', side: 'buy' as const, time: Date.now() };
      feed.received([['trades', { topic, seq: 41, ts: Date.now(), data: [trade] }]]);
      // The process holding the books has already counted its next message, not yet received here.
      const redis = t.app.get<Redis>(REDIS);
      await redis.set(`feed-seq:${topic}`, '42');
      const snap = await feed.snapshot(topic, { kind: 'trades', symbol: 'ETH/USDT' });
      expect(snap.seq).toBe(41);
      expect((snap.data as Array<{ trade_id: string }>).at(-1)).toMatchObject({ trade_id: '990000001' });
    });
  });
});
