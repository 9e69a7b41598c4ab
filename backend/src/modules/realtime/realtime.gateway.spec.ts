import type { Socket } from 'socket.io';
import type { AppConfig } from '../../infra/config/config';
import type { MarketFeedService } from './market-feed.service';
import { MAX_TOPICS, RealtimeGateway, SESSION_UNAVAILABLE } from './realtime.gateway';
import type { ParsedTopic } from './topics';
import { MAX_ORDERS_IN_FLIGHT, MAX_UNREAD_ORDER_ANSWERS } from './flow';

/** Markets disabled at run time: the registry no longer names them. */
const disabled = new Set<string>();
/** A venue with markets M1/USDT … M99/USDT, spelled any way the registry accepts (case and separators ignored). */
const feed = {
  canonical: (p: ParsedTopic): ParsedTopic | undefined => {
    if (p.kind === 'tickers') return p;
    const m = /^M(\d+)USDT$/.exec(p.symbol.toUpperCase().replace(/[^A-Z0-9]/g, ''));
    return m && !disabled.has(`M${m[1]}/USDT`) ? { ...p, symbol: `M${m[1]}/USDT` } : undefined;
  },
  snapshot: async (topic: string) => ({ topic, seq: 0, data: null }),
} as unknown as MarketFeedService;

function fakeSocket(batch: boolean) {
  const rooms = new Set<string>(['sid']);
  const socket = {
    id: 'sid',
    rooms,
    data: { batch } as { batch: boolean; topics?: string[] },
    // As the adapters in use do: the room sets change at once, the promise settles later.
    join: (r: string | string[]) => ([r].flat().forEach((x) => rooms.add(x)), Promise.resolve()),
    leave: (r: string) => (rooms.delete(r), Promise.resolve()),
  };
  return socket;
}

describe('RealtimeGateway subscribe', () => {
  const gateway = new RealtimeGateway(feed, {} as never, {} as never, { fastLane: false, tokenCacheMs: 2000 } as AppConfig);
  const subscribe = (s: ReturnType<typeof fakeSocket>, topics: unknown) => gateway.subscribe(s as unknown as Socket, topics);
  const unsubscribe = (s: ReturnType<typeof fakeSocket>, topics: unknown) => gateway.unsubscribe(s as unknown as Socket, topics);
  const depth = (from: number, n: number, spell = (i: number) => `depth:M${i}/USDT`) => Array.from({ length: n }, (_, i) => spell(from + i));

  for (const batch of [false, true]) {
    const followed = (s: ReturnType<typeof fakeSocket>) => (batch ? (s.data.topics ?? []) : [...s.rooms].filter((r) => r !== 'sid'));

    it(`${batch ? 'a batched socket' : 'a socket'}: an unsubscribe and a subscribe arriving together leave it in the room of what it follows (regression: each left the other's new room, and it got no market data)`, async () => {
      const s = fakeSocket(batch);
      await subscribe(s, ['depth:M1/USDT', 'trades:M1/USDT']);
      await Promise.all([unsubscribe(s, ['trades:M1/USDT']), subscribe(s, ['trades:M1/USDT'])]);
      expect(followed(s).sort()).toEqual(['depth:M1/USDT', 'trades:M1/USDT']);
      if (batch) expect([...s.rooms].filter((r) => r.startsWith('feed:'))).toEqual(['feed:depth:M1/USDT|trades:M1/USDT']);
    });

    it(`${batch ? 'a batched socket' : 'a socket'} joins the canonical topic however spelled: one topic, however many spellings`, async () => {
      const s = fakeSocket(batch);
      for (const spelled of ['depth:m1usdt', 'depth:M.1/USDT', 'depth:m1--usdt', 'depth:M1_usdt', 'depth:M1/USDT'])
        expect(await subscribe(s, [spelled])).toEqual([{ topic: 'depth:M1/USDT', seq: 0, data: null }]);
      expect(followed(s)).toEqual(['depth:M1/USDT']);
      expect(s.rooms.size).toBe(2);
      // Left by any spelling too; a private room is never left by unsubscribe.
      s.rooms.add('user:7');
      await unsubscribe(s, ['depth:m1_usdt', 'user:7', 'chat:1']);
      expect(followed(s).filter((r) => r !== 'user:7')).toEqual([]);
      expect(s.rooms.has('user:7')).toBe(true);
    });

    it(`${batch ? 'a batched socket' : 'a socket'} follows at most ${MAX_TOPICS} topics in all; past that a subscribe is refused and changes nothing`, async () => {
      const s = fakeSocket(batch);
      expect(await subscribe(s, depth(1, MAX_TOPICS - 2))).toHaveLength(MAX_TOPICS - 2);
      expect(await subscribe(s, ['tickers', 'trades:m1usdt'])).toHaveLength(2);
      const before = [...followed(s)];
      const error = { error: `a connection follows at most ${MAX_TOPICS} topics: unsubscribe some first` };
      expect(await subscribe(s, ['depth:M99/USDT'])).toEqual(error);
      expect(await subscribe(s, ['depth:M1/USDT', 'kline:M2/USDT:1min'])).toEqual(error);
      expect(followed(s)).toEqual(before);
      // Topics it follows already (any spelling) are not new.
      expect(await subscribe(s, ['depth:m1usdt', 'tickers', 'trades:M1/USDT'])).toHaveLength(3);
      // One left, one more fits.
      await unsubscribe(s, ['depth:m3-usdt']);
      expect(await subscribe(s, ['depth:M99/USDT', 'depth:M99/USDT'])).toHaveLength(2);
      expect(followed(s)).toHaveLength(MAX_TOPICS);
      expect(await subscribe(s, ['depth:M98/USDT'])).toEqual(error);
    });

    it(`${batch ? 'a batched socket' : 'a socket'} leaves the topics of a market disabled since it joined, by any spelling (regression: they stayed, counted against the cap)`, async () => {
      const s = fakeSocket(batch);
      expect(await subscribe(s, ['depth:M5/USDT', 'trades:M5/USDT', 'kline:M5/USDT:1min', 'kline:M5/USDT:5min', 'depth:M6/USDT'])).toHaveLength(5);
      s.rooms.add('user:7');
      disabled.add('M5/USDT');
      try {
        expect(await subscribe(s, ['depth:M5/USDT'])).toEqual({ error: 'unknown market in topic: depth:M5/USDT' });
        await unsubscribe(s, ['depth:m5_usdt', 'trades:M5-USDT', 'kline:m5usdt:1min', 'depth:M55/USDT', 'user:7']);
        // Only what was asked: the other period of the candles, another market and the private room stay.
        expect(followed(s).filter((r) => r !== 'user:7')).toEqual(['kline:M5/USDT:5min', 'depth:M6/USDT']);
        expect(s.rooms.has('user:7')).toBe(true);
        await unsubscribe(s, ['kline:M.5/usdt:5min']);
        expect(followed(s).filter((r) => r !== 'user:7')).toEqual(['depth:M6/USDT']);
      } finally {
        disabled.delete('M5/USDT');
      }
    });
  }
});

describe('RealtimeGateway connection', () => {
  it('a session that cannot be read (the database away) refuses the connection, asking the client to connect again, instead of rejecting (regression: an unhandled rejection ended the process)', async () => {
    const tokens = {
      session: async () => {
        throw new Error('connection terminated');
      },
      onRevoked: () => undefined,
    };
    const gateway = new RealtimeGateway({ attach: () => undefined } as never, tokens as never, {} as never, { fastLane: false, tokenCacheMs: 2000 } as AppConfig);
    let middleware!: (socket: Socket, next: (err?: Error & { data?: unknown }) => void) => void;
    gateway.afterInit({ use: (fn: typeof middleware) => (middleware = fn) } as never);
    gateway.onApplicationShutdown();
    const socket = { data: {}, handshake: { auth: { token: 'a-token-long-enough-1234' }, headers: {} } };
    const refused = await new Promise<(Error & { data?: unknown }) | undefined>((resolve) => middleware(socket as unknown as Socket, resolve));
    expect(refused).toMatchObject({ message: SESSION_UNAVAILABLE, data: { retry: true } });
  });
});

describe('RealtimeGateway flow control', () => {
  it('a socket that subscribes faster than it reads the answers is refused until it catches up (regression: unbounded snapshot reads and buffered answers)', async () => {
    const waiting: Array<() => void> = [];
    const slow = {
      ...feed,
      snapshot: (topic: string) => new Promise((r) => waiting.push(() => r({ topic, seq: 0, data: null }))),
    } as unknown as MarketFeedService;
    const gateway = new RealtimeGateway(slow, {} as never, {} as never, { fastLane: false, tokenCacheMs: 2000 } as AppConfig);
    const s = fakeSocket(false);
    const subscribe = (topics: string[]) => gateway.subscribe(s as unknown as Socket, topics);
    const first = [1, 2, 3, 4].map((i) => subscribe([`depth:M${i}/USDT`]));
    expect(await subscribe(['depth:M5/USDT'])).toEqual({ error: 'too many subscribes waiting: read their answers first' });
    const tick = () => new Promise((r) => setImmediate(r));
    await tick();
    for (const w of waiting.splice(0)) w();
    await Promise.all(first);
    const next = subscribe(['depth:M5/USDT']);
    await tick();
    for (const w of waiting.splice(0)) w();
    expect(await next).toEqual([{ topic: 'depth:M5/USDT', seq: 0, data: null }]);
    // Its answers and pushes not read: nothing more is read for it.
    Object.assign(s, { conn: { writeBuffer: new Array(65).fill({}) } });
    expect(await subscribe(['depth:M6/USDT'])).toEqual({ error: 'too many subscribes waiting: read their answers first' });
  });
});

describe('RealtimeGateway order flow control', () => {
  it('an `order` on a socket with too many open or its answers unread closes the connection and is not taken (regression: unbounded)', async () => {
    const asked: unknown[] = [];
    const held: Array<() => void> = [];
    const orders = { answer: (_h: unknown, request: unknown) => (asked.push(request), new Promise((r) => held.push(() => r({ ok: true })))) };
    const gateway = new RealtimeGateway(feed, {} as never, orders as never, { fastLane: false, tokenCacheMs: 2000 } as AppConfig);
    const order = gateway as unknown as { order: (s: Socket, request: unknown, ack: unknown) => void };
    const s = Object.assign(fakeSocket(false), { handshake: {}, disconnect: jest.fn() });
    const acked: unknown[] = [];
    for (let i = 0; i < MAX_ORDERS_IN_FLIGHT; i++) order.order(s as unknown as Socket, { id: i }, (a: unknown) => acked.push(a));
    order.order(s as unknown as Socket, { id: 'over' }, () => undefined);
    expect(s.disconnect).toHaveBeenCalledWith(true);
    expect(asked).toHaveLength(MAX_ORDERS_IN_FLIGHT);
    // Answered: open again, until its answers go unread.
    for (const r of held.splice(0)) r();
    await new Promise((r) => setImmediate(r));
    expect(acked).toHaveLength(MAX_ORDERS_IN_FLIGHT);
    s.disconnect.mockClear();
    order.order(s as unknown as Socket, { id: 'now' }, () => undefined);
    expect(s.disconnect).not.toHaveBeenCalled();
    Object.assign(s, { conn: { writeBuffer: new Array(MAX_UNREAD_ORDER_ANSWERS + 1).fill({}) } });
    order.order(s as unknown as Socket, { id: 'unread' }, () => undefined);
    expect(s.disconnect).toHaveBeenCalledWith(true);
    expect(asked).not.toContainEqual({ id: 'unread' });
  });
});
