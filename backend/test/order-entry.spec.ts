import type { ClientToServerEvents, OrderAck, ServerToClientEvents } from '@kestrel/contracts';
import { AddressInfo } from 'node:net';
import { io, Socket } from 'socket.io-client';
import { coinBalance, spotTrader } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';

type Client = Socket<ServerToClientEvents, ClientToServerEvents>;
type Body = Record<string, unknown>;

const USDT = 3;

/** Faster ingress: POST coin/batch_trade and the Socket.IO `order` channel answer exactly as POST / PUT coin/trade do. */
describe('order entry: batch and Socket.IO (real PostgreSQL + Redis)', () => {
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
    await t?.close();
  });

  const trader = (usdt = '1000') => spotTrader(t, USDT, usdt);
  const connect = (auth: Record<string, string> = {}) =>
    new Promise<Client>((resolve, reject) => {
      const c: Client = io(url, { path: '/socket.io', transports: ['websocket'], auth, reconnection: false });
      clients.push(c);
      c.once('connect', () => resolve(c));
      c.once('connect_error', reject);
    });
  const http = (method: 'post' | 'put', path: string, token: string | undefined, body: object, lang = 'en', type: 'form' | 'json' = 'json') => {
    let q = t.http()[method](`/api/${path}`).set('lang', lang);
    if (token) q = q.set('Authorization', token);
    return q.type(type).send(body);
  };
  const batch = (token: string | undefined, body: object, lang = 'en', type: 'form' | 'json' = 'json') => http('post', 'coin/batch_trade', token, body, lang, type);
  const orders = async (token: string) => (await t.http().get('/api/coin/list').set('Authorization', token)).body.data.items as Body[];
  /** An order's answer without what differs between two equal orders. */
  const shape = <T extends object>(e: { data: T | null }) => ({ ...e, data: e.data && { ...e.data, order_id: 'id', created_at: 'time', updated_at: 'time' } });
  const limitBuy = (price: string, quantity: string, extra: Body = {}) => ({ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price, quantity, ...extra });

  describe('POST coin/batch_trade', () => {
    it('mixed valid and invalid orders: each its own answer, as coin/trade gives it; the valid ones placed, exact balances', async () => {
      const u = await trader('1000');
      const entries: unknown[] = [
        limitBuy('100', '2', { client_order_id: 'batch-a' }),
        { symbol: 'BTC/USDT', side: 'hold', type: 'limit', price: '1', quantity: '1' },
        limitBuy('100', '1', { leverage: '100' }),
        { symbol: 'NOPE/USDT', side: 'buy', type: 'limit', price: '100', quantity: '1' },
        { symbol: 'BTC/USDT', side: 'buy', type: 'limit', quantity: '1' },
        limitBuy('2000', '1'), // 2,000 USDT: more than the account ever had
        limitBuy('50', '4'),
        { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: 100, quantity: '1' },
        'not an order',
      ];
      const r = await batch(u.token, { orders: entries }, 'zh');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ type: 'ok', code: 1, message: '成功' });
      const results = r.body.data.results as Array<{ type: string; code: number; message: string; data: Body | null }>;
      expect(results.map((x) => x.code)).toEqual([1, 1000, 1001, 2001, 1000, 2000, 1, 1000, 1000]);
      expect(results[0]).toMatchObject({ type: 'ok', message: '下单成功', data: { status: 'waiting', price: '100', quantity: '2', client_order_id: 'batch-a' } });
      expect(results[6].data).toMatchObject({ status: 'waiting', price: '50', quantity: '4' });
      expect(results[8]).toEqual({ type: 'error', code: 1000, message: '请求无效', data: null });

      // Every refusal is word for word what POST coin/trade answers for that body (nothing it refuses changes anything).
      const twin = await trader('1000');
      for (const i of [1, 2, 3, 4, 5, 7]) {
        const single = await http('post', 'coin/trade', twin.token, entries[i] as object, 'zh');
        expect({ i, answer: results[i] }).toEqual({ i, answer: single.body });
      }
      expect(await coinBalance(t, twin.user.id, USDT)).toEqual({ available: '1000', frozen: '0' });

      // 100 × 2 + 50 × 4 frozen; two orders on the book.
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '600', frozen: '400' });
      const listed = await orders(u.token);
      expect(listed.map((o) => o.order_id).sort()).toEqual([results[0].data!.order_id, results[6].data!.order_id].sort());
    });

    it('form encoding: `orders` as a JSON string; the valid answer is the one coin/trade gives', async () => {
      const [u, twin] = [await trader(), await trader()];
      const order = limitBuy('10.5', '3');
      const r = await batch(u.token, { orders: JSON.stringify([order]) }, 'en', 'form');
      const single = await http('post', 'coin/trade', twin.token, order, 'en', 'form');
      expect(r.body.code).toBe(1);
      expect(shape(r.body.data.results[0])).toEqual(shape(single.body));
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '968.5', frozen: '31.5' });
    });

    it('11 orders, none, a non-array, no list or an unknown field: code 1000 (or 1001) and nothing placed', async () => {
      const u = await trader();
      const eleven = Array.from({ length: 11 }, (_, i) => limitBuy(String(10 + i), '1'));
      const cases: Array<[object, 'form' | 'json', object]> = [
        [{ orders: eleven }, 'json', { type: 'error', code: 1000, message: 'orders is invalid', data: null }],
        [{ orders: JSON.stringify(eleven) }, 'form', { code: 1000, message: 'orders is invalid' }],
        [{ orders: [] }, 'json', { code: 1000, message: 'orders is invalid' }],
        [{ orders: '[]' }, 'form', { code: 1000, message: 'orders is invalid' }],
        [{ orders: limitBuy('10', '1') }, 'json', { code: 1000, message: 'orders is invalid' }],
        [{ orders: 'not json' }, 'form', { code: 1000, message: 'orders is invalid' }],
        [{}, 'json', { code: 1000, message: 'orders is required' }],
        [{ orders: [limitBuy('10', '1')], atomic: '1' }, 'json', { code: 1001, message: 'Unknown field: atomic' }],
      ];
      for (const [body, type, answer] of cases) expect({ body, answer: (await batch(u.token, body, 'en', type)).body }).toMatchObject({ body, answer });
      expect((await batch(u.token, { orders: eleven }, 'zh')).body).toMatchObject({ code: 1000, message: 'orders 格式不正确' });
      expect(await orders(u.token)).toEqual([]);
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1000', frozen: '0' });
    });

    it('the same client_order_id twice in a batch, and again by itself: one order', async () => {
      const u = await trader();
      const order = limitBuy('20', '1', { client_order_id: 'twice' });
      const r = await batch(u.token, { orders: [order, order] });
      const [a, b] = r.body.data.results;
      expect([a.code, b.code]).toEqual([1, 1]);
      expect(b.data.order_id).toBe(a.data.order_id);
      expect((await http('post', 'coin/trade', u.token, order)).body.data.order_id).toBe(a.data.order_id);
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '980', frozen: '20' });
      expect((await orders(u.token)).length).toBe(1);
    });

    it('needs a user token (401), like the other coin routes', async () => {
      expect((await batch(undefined, { orders: [limitBuy('10', '1')] })).body).toEqual({ type: '999', code: 401, message: 'Please log in first', data: null });
      expect((await batch('not-a-real-token-0123456789', { orders: [limitBuy('10', '1')] }, 'zh')).body).toMatchObject({ code: 401, message: '请先登录' });
    });
  });

  describe('Socket.IO `order`', () => {
    it('place and cancel: the same answers as HTTP, the ack echoing the id', async () => {
      const [u, twin] = [await trader(), await trader()];
      const c = await connect({ token: u.token });
      const order = limitBuy('100.5', '2', { client_order_id: 'ws-1' });
      const placed = await c.emitWithAck('order', { id: 'p-1', method: 'place', params: order as never });
      const viaHttp = await http('post', 'coin/trade', twin.token, order);
      expect(placed.id).toBe('p-1');
      const { id: _placedId, ...placedEnvelope } = placed;
      expect(shape(placedEnvelope)).toEqual(shape(viaHttp.body));
      expect(placed).toMatchObject({ type: 'ok', code: 1, message: 'Order placed', data: { status: 'waiting', client_order_id: 'ws-1' } });
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '799', frozen: '201' });

      // The order as the read side shows it is the order the ack gave.
      const [listed] = await orders(u.token);
      expect({ ...listed, updated_at: 'time' }).toEqual({ ...placed.data, updated_at: 'time' });

      const cancelled = await c.emitWithAck('order', { id: 7, method: 'cancel', params: { order_id: placed.data!.order_id } });
      const httpCancel = await http('put', 'coin/trade', twin.token, { order_id: viaHttp.body.data.order_id });
      expect(cancelled.id).toBe(7);
      const { id: _cancelId, ...cancelEnvelope } = cancelled;
      expect(shape(cancelEnvelope)).toEqual(shape(httpCancel.body));
      expect(cancelled).toMatchObject({ code: 1, message: 'Cancellation submitted', data: { status: 'cancelled' } });
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1000', frozen: '0' });
      // Cancelling again: the same refusal as HTTP.
      expect(await c.emitWithAck('order', { id: 8, method: 'cancel', params: { order_id: placed.data!.order_id } })).toMatchObject({ id: 8, code: 2104 });
    });

    it.each(['en', 'zh'])('refusals carry the codes and messages HTTP gives, in the handshake’s language (%s)', async (lang) => {
      const u = await trader('100');
      const c = await connect({ token: u.token, lang });
      const cases: Array<['place' | 'cancel', unknown]> = [
        ['place', { symbol: 'BTC/USDT', side: 'hold', type: 'limit', price: '1', quantity: '1' }],
        ['place', limitBuy('1', '1', { leverage: '100' })],
        ['place', { symbol: 'BTC/USDT', side: 'buy', type: 'limit', quantity: '1' }],
        ['place', { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: 'abc', quantity: '1' }],
        ['place', { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: 100, quantity: '1' }],
        ['place', { symbol: 'NOPE/USDT', side: 'buy', type: 'limit', price: '100', quantity: '1' }],
        ['place', limitBuy('100', '0.00001')],
        ['place', limitBuy('100', '5')],
        ['place', { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '100', quantity: '1' }],
        ['place', {}],
        ['cancel', {}],
        ['cancel', { order_id: '12x' }],
        ['cancel', { order_id: '999999999' }],
      ];
      for (const [i, [method, params]] of cases.entries()) {
        const ack = await c.emitWithAck('order', { id: `r-${i}`, method, params } as never);
        const viaHttp = await http(method === 'place' ? 'post' : 'put', 'coin/trade', u.token, params as object, lang);
        expect({ method, params, ack }).toEqual({ method, params, ack: { id: `r-${i}`, ...viaHttp.body } });
        expect(ack.code).not.toBe(1);
      }
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '100', frozen: '0' });

      // A request that is not {id, method, params}: 1000 (or 1001), with the id when there is a usable one.
      const bad = async (request: unknown) => c.emitWithAck('order', request as never);
      const zh = lang === 'zh';
      expect(await bad({ id: 'x', method: 'amend', params: {} })).toEqual({ id: 'x', type: 'error', code: 1000, message: zh ? 'method 格式不正确' : 'method is invalid', data: null });
      expect(await bad({ method: 'place', params: limitBuy('1', '1') })).toMatchObject({ id: null, code: 1000, message: zh ? 'id 不能为空' : 'id is required' });
      expect(await bad({ id: 'y', method: 'place' })).toMatchObject({ id: 'y', code: 1000, message: zh ? 'params 不能为空' : 'params is required' });
      expect(await bad({ id: 'z', method: 'place', params: 'x' })).toMatchObject({ id: 'z', code: 1000 });
      expect(await bad({ id: 'w', method: 'place', params: {}, extra: 1 })).toMatchObject({ id: 'w', code: 1001 });
      expect(await bad('place')).toMatchObject({ id: null, code: 1000, message: zh ? '请求无效' : 'Invalid request' });
      expect(await orders(u.token)).toEqual([]);
    });

    it('a socket without a valid user token gets 401 in the ack and places nothing; a token revoked after the handshake too', async () => {
      const u = await trader();
      const order = { id: 1, method: 'place' as const, params: limitBuy('10', '1') };
      const visitor = await connect();
      expect(await visitor.emitWithAck('order', order as never)).toEqual({ id: 1, type: '999', code: 401, message: 'Please log in first', data: null });
      const forged = await connect({ token: 'not-a-real-token-0123456789', lang: 'zh' });
      expect(await forged.emitWithAck('order', order as never)).toEqual({ id: 1, type: '999', code: 401, message: '请先登录', data: null });

      const c = await connect({ token: u.token });
      expect((await c.emitWithAck('order', order as never)).code).toBe(1);
      expect((await http('post', 'user/logout', u.token, {})).body.code).toBe(1);
      expect(await c.emitWithAck('order', { ...order, id: 2 } as never)).toMatchObject({ id: 2, code: 401 });
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '990', frozen: '10' });
    });

    it('a retried client_order_id is the same order: one effect, however the retries arrive', async () => {
      const u = await trader();
      const c = await connect({ token: u.token });
      const request = (id: number) => ({ id, method: 'place' as const, params: limitBuy('25', '2', { client_order_id: 'retry-me' }) });
      const first = await c.emitWithAck('order', request(1) as never);
      // Retries: one after the answer, and three at once (as after a dropped connection).
      const again = [await c.emitWithAck('order', request(2) as never), ...(await Promise.all([3, 4, 5].map((i) => c.emitWithAck('order', request(i) as never))))];
      expect(first).toMatchObject({ id: 1, code: 1, data: { status: 'waiting', client_order_id: 'retry-me' } });
      for (const a of again as OrderAck[]) {
        expect(a.code).toBe(1);
        expect(a.data!.order_id).toBe(first.data!.order_id);
      }
      expect(again.map((a) => a.id)).toEqual([2, 3, 4, 5]);
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '950', frozen: '50' });
      expect((await orders(u.token)).length).toBe(1);
      // Over HTTP too: the socket's order is the one the id names.
      const viaHttp = await http('post', 'coin/trade', u.token, request(6).params);
      expect(viaHttp.body.data.order_id).toBe(first.data!.order_id);
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '950', frozen: '50' });
    });
  });

  // Regression: past the engine's integers (2^53 quote units, lots, or ticks × lots) the conversions
  // have no answer, which read as 0 or as a bad price: "Amount cannot be empty", "Enter a valid price".
  describe('orders too large for the engine', () => {
    it.each<[string, Body]>([
      ['a market buy of 1,000,000,000 USDT (10^16 quote units of 10^-7)', { symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '1000000000' }],
      ['a limit buy of 20,000 BTC at 60,000 (2·10^9 lots × 6·10^6 ticks)', limitBuy('60000', '20000')],
      ['a market buy of 20,000 BTC with a worst price of 60,000', { symbol: 'BTC/USDT', side: 'buy', type: 'market', price: '60000', quantity: '20000' }],
      ['a limit sell of 10^11 BTC (10^16 lots)', { symbol: 'BTC/USDT', side: 'sell', type: 'limit', price: '60000', quantity: '100000000000' }],
    ])('%s: 1000 "The amount is too large", nothing placed', async (_what, order) => {
      const u = await trader('1000');
      expect((await http('post', 'coin/trade', u.token, order)).body).toEqual({ type: 'error', code: 1000, message: 'The amount is too large', data: null });
      // The batch gives the same answer.
      expect((await batch(u.token, { orders: [order] })).body.data.results).toEqual([
        { type: 'error', code: 1000, message: 'The amount is too large', data: null },
      ]);
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '1000', frozen: '0' });
      expect(await orders(u.token)).toEqual([]);
    });

    it('below those bounds the usual answers stay: an amount under one quote unit is empty, a large order placeable is only short of funds', async () => {
      const u = await trader('1000');
      const empty = await http('post', 'coin/trade', u.token, { symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '0.00000001' });
      expect(empty.body).toMatchObject({ code: 1000, message: 'Amount cannot be empty' });
      expect((await http('post', 'coin/trade', u.token, limitBuy('60000', '1000'))).body).toMatchObject({ code: 2000 });
    });
  });
});
