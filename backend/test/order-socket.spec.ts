import { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { OrderChannel } from '../src/modules/coin-trade/order-channel';
import { ORDER_SOCKET_MAX_BYTES, ORDER_SOCKET_MAX_OPEN } from '../src/modules/coin-trade/order-socket';
import { registerByEmail } from './support/accounts';
import { coinBalance, spotTrader } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

type Answer = { id: unknown; type: string; code: number; message: string; data: Record<string, unknown> | null };

const USDT = 3;

/** The plain WebSocket order endpoint (/api/coin/ws) answers as POST / PUT coin/trade and the Socket.IO channel do. */
describe('order entry: plain WebSocket /api/coin/ws (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let base: string;
  const sockets: WebSocket[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    base = `127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.terminate();
    await t?.close();
  });

  const trader = (usdt = '1000') => spotTrader(t, USDT, usdt);

  /** A connection whose `ask` sends one text message and resolves with the next answer. */
  async function connect(headers: Record<string, string> = {}, query = '') {
    const ws = new WebSocket(`ws://${base}/api/coin/ws${query}`, { headers });
    sockets.push(ws);
    await new Promise((ok, fail) => ws.once('open', ok).once('error', fail));
    const ask = (message: unknown, raw = false) =>
      new Promise<Answer>((ok) => {
        ws.once('message', (data) => ok(JSON.parse(data.toString())));
        ws.send(raw ? (message as string) : JSON.stringify(message));
      });
    return { ws, ask };
  }
  const http = (method: 'post' | 'put', token: string, body: object, lang = 'en') => t.http()[method]('/api/coin/trade').set('Authorization', token).set('lang', lang).type('json').send(body);
  const shape = (e: { data: Record<string, unknown> | null }) => ({ ...e, data: e.data && { ...e.data, order_id: 'id', created_at: 'time', updated_at: 'time' } });
  const limitBuy = (price: string, quantity: string) => ({ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price, quantity });

  it('places and cancels with the envelope HTTP answers, the request id echoed; exact balances', async () => {
    const [u, twin] = [await trader(), await trader()];
    const { ask } = await connect({ authorization: u.token, lang: 'zh' });
    const placed = await ask({ id: 'p-1', method: 'place', params: limitBuy('100', '2') });
    const single = await http('post', twin.token, limitBuy('100', '2'), 'zh');
    expect(placed).toMatchObject({ id: 'p-1', type: 'ok', code: 1, data: { status: 'waiting', price: '100', quantity: '2' } });
    expect(shape(placed)).toEqual({ id: 'p-1', ...shape(single.body) });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '800', frozen: '200' });

    const cancelled = await ask({ id: 7, method: 'cancel', params: { order_id: placed.data!.order_id } });
    expect(cancelled).toMatchObject({ id: 7, code: 1, data: { status: 'cancelled' } });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1000', frozen: '0' });
  });

  it('refusals: the same codes and messages as HTTP; nothing changes', async () => {
    const u = await trader();
    const { ws, ask } = await connect({ authorization: u.token });
    const bodies: object[] = [{ symbol: 'BTC/USDT', side: 'hold', type: 'limit', price: '1', quantity: '1' }, limitBuy('2000', '1'), { ...limitBuy('1', '1'), leverage: '100' }];
    for (const [i, params] of bodies.entries()) {
      const a = await ask({ id: i, method: 'place', params });
      expect({ i, a: { ...a, id: undefined } }).toEqual({ i, a: { ...(await http('post', u.token, params)).body, id: undefined } });
      expect(a.code).not.toBe(1);
    }
    // Not JSON, not an object, binary, an unknown method: code 1000/1001 with id null (or the id when it is usable).
    expect(await ask('{"id": 1, ', true)).toMatchObject({ id: null, type: 'error', code: 1000 });
    expect(await ask('"text"', true)).toMatchObject({ id: null, type: 'error', code: 1000 });
    expect(await ask({ id: 3, method: 'transfer', params: {} })).toMatchObject({ id: 3, type: 'error', code: 1000 });
    const binary = await new Promise<Answer>((ok) => {
      ws.once('message', (data) => ok(JSON.parse(data.toString())));
      ws.send(Buffer.from(JSON.stringify({ id: 4, method: 'place', params: limitBuy('1', '1') })), { binary: true });
    });
    expect(binary).toMatchObject({ id: null, type: 'error', code: 1000 });
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1000', frozen: '0' });
  });

  it(`a burst over ${ORDER_SOCKET_MAX_OPEN} open requests is slowed, not dropped: every one answered once, exact balances`, async () => {
    const u = await trader('1000');
    const { ws } = await connect({ authorization: u.token });
    const n = ORDER_SOCKET_MAX_OPEN * 2 + 88;
    const answers = new Map<unknown, Answer>();
    const all = new Promise<void>((ok) =>
      ws.on('message', (data) => {
        const a = JSON.parse(data.toString()) as Answer;
        expect(answers.has(a.id)).toBe(false);
        answers.set(a.id, a);
        if (answers.size === n) ok();
      }),
    );
    for (let i = 0; i < n; i++) ws.send(JSON.stringify({ id: i, method: 'place', params: limitBuy('1', '1') }));
    await all;
    expect([...answers.values()].filter((a) => a.code === 1)).toHaveLength(n);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: String(1000 - n), frozen: String(n) });
  });

  it('no token, a bad one, or a token in the URL: the upgrade is refused with HTTP 401', async () => {
    const u = await trader();
    for (const [headers, query] of [[{}, ''], [{ authorization: 'not-a-real-token-0123456789' }, ''], [{}, `?token=${encodeURIComponent(u.token)}`]] as const) {
      const ws = new WebSocket(`ws://${base}/api/coin/ws${query}`, { headers });
      sockets.push(ws);
      const status = await new Promise<number | undefined>((ok) => {
        ws.once('unexpected-response', (_req, res) => ok(res.statusCode));
        ws.once('open', () => ok(undefined));
        ws.once('error', () => undefined);
      });
      expect({ query, status }).toEqual({ query, status: 401 });
    }
  });

  it('an upgrade whose token lookup takes more than a second is still answered (regression: Engine.IO dropped it after 1 s, unanswered)', async () => {
    const u = await trader();
    const channel = t.app.get(OrderChannel);
    const real = channel.authenticate.bind(channel);
    const slow = jest.spyOn(channel, 'authenticate').mockImplementationOnce(async (h) => {
      await new Promise((r) => setTimeout(r, 1500));
      return real(h);
    });
    try {
      const { ask } = await connect({ authorization: u.token });
      expect(await ask({ id: 'slow-1', method: 'place', params: limitBuy('100', '1') })).toMatchObject({ id: 'slow-1', code: 1 });
    } finally {
      slow.mockRestore();
    }
  });

  it('answers in the language of ?lang= (or the lang header)', async () => {
    const u = await trader();
    const { ask } = await connect({ authorization: u.token }, '?lang=zh');
    const refused = await ask({ id: 1, method: 'place', params: { symbol: 'NOPE/USDT', side: 'buy', type: 'limit', price: '1', quantity: '1' } });
    expect(refused).toEqual({ id: 1, ...(await http('post', u.token, { symbol: 'NOPE/USDT', side: 'buy', type: 'limit', price: '1', quantity: '1' }, 'zh')).body });
    expect(refused.message).not.toEqual((await http('post', u.token, { symbol: 'NOPE/USDT', side: 'buy', type: 'limit', price: '1', quantity: '1' }, 'en')).body.message);
  });

  it("another user's order cannot be cancelled over it (2103) and stays in the book", async () => {
    const [a, b] = [await trader(), await trader()];
    const [ca, cb] = [await connect({ authorization: a.token }), await connect({ authorization: b.token })];
    const placed = await ca.ask({ id: 1, method: 'place', params: limitBuy('10', '1') });
    expect(await cb.ask({ id: 2, method: 'cancel', params: { order_id: placed.data!.order_id } })).toMatchObject({ id: 2, code: 2103, data: null });
    expect(await coinBalance(t, a.user.id, USDT)).toEqual({ available: '990', frozen: '10' });
    expect(await ca.ask({ id: 3, method: 'cancel', params: { order_id: placed.data!.order_id } })).toMatchObject({ id: 3, code: 1, data: { status: 'cancelled' } });
  });

  it('a logout stops order entry on an open connection at once', async () => {
    const u = await trader();
    const { ask } = await connect({ authorization: u.token });
    expect((await ask({ id: 1, method: 'place', params: limitBuy('1', '1') })).code).toBe(1);
    expect((await t.http().post('/api/user/logout').set('Authorization', u.token)).body.code).toBe(1);
    expect(await ask({ id: 2, method: 'place', params: limitBuy('1', '1') })).toMatchObject({ id: 2, code: 401 });
  });

  it('a message over the cap closes the connection (1009); other paths are not ours', async () => {
    const { ws } = await connect({ authorization: (await trader()).token });
    const closed = new Promise<number>((ok) => ws.once('close', (code) => ok(code)));
    ws.send('x'.repeat(ORDER_SOCKET_MAX_BYTES + 1));
    expect(await closed).toBe(1009);
    // An upgrade elsewhere under /api is not answered by the endpoint.
    const other = new WebSocket(`ws://${base}/api/coin/wss`);
    sockets.push(other);
    await expect(new Promise((ok, fail) => other.once('open', ok).once('error', fail))).rejects.toThrow();
  });
});

describe('order entry: plain WebSocket at shutdown', () => {
  it('closing the app sends open connections 1001 and does not wait for them to leave', async () => {
    const t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    const base = `127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const u = await registerByEmail(t);
    const ws = new WebSocket(`ws://${base}/api/coin/ws`, { headers: { authorization: u.token } });
    await new Promise((ok, fail) => ws.once('open', ok).once('error', fail));
    const code = new Promise<number>((ok) => ws.once('close', (c) => ok(c)));
    const started = Date.now();
    await t.close();
    expect(await code).toBe(1001);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
