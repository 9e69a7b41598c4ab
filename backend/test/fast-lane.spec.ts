import { registerByEmail } from './support/accounts';
import { coinBalance, spotTrader } from './support/funding';
import { startTestApp, TestApp } from './support/test-app';
import { CoinTradeService } from '../src/modules/coin-trade/coin-trade.service';

const USDT = 3;

/**
 * The order lane (infra/http/fast-lane.ts) answers POST/PUT /api/coin/trade outside Express.
 * It must give exactly the answers the Nest controller gives: the same app with FAST_LANE=off
 * is the reference.
 */
describe('order lane: same answers as the Nest route (real PostgreSQL + Redis)', () => {
  let lane: TestApp;
  let nest: TestApp;
  beforeAll(async () => {
    lane = await startTestApp();
    process.env.FAST_LANE = 'off';
    try {
      nest = await startTestApp();
    } finally {
      delete process.env.FAST_LANE;
    }
  });
  afterAll(async () => {
    await lane?.close();
    await nest?.close();
  });

  const trader = (t: TestApp) => spotTrader(t, USDT, '1000');

  type Req = { method: 'post' | 'put'; token?: 'valid' | 'bad'; lang?: string; type?: 'form' | 'json'; body?: unknown; raw?: string };
  async function send(t: TestApp, token: string, r: Req) {
    let q = t.http()[r.method]('/api/coin/trade');
    if (r.token) q = q.set('Authorization', r.token === 'valid' ? token : 'not-a-real-token-0123456789');
    if (r.lang) q = q.set('lang', r.lang);
    if (r.raw !== undefined) q = q.set('content-type', r.type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded').send(r.raw);
    else if (r.body !== undefined) q = q.type(r.type ?? 'form').send(r.body as object);
    return q;
  }

  it('refusals are identical, in every language', async () => {
    const [a, b] = [await trader(lane), await trader(nest)];
    const cases: Req[] = [
      { method: 'post', body: { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100', quantity: '1' } },
      { method: 'post', token: 'bad', body: { symbol: 'BTC/USDT' } },
      { method: 'post', token: 'valid', body: {} },
      { method: 'post', token: 'valid', lang: 'zh', body: { symbol: 'BTC/USDT', side: 'hold', type: 'limit', price: '1', quantity: '1' } },
      { method: 'post', token: 'valid', body: { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '1', quantity: '1', leverage: '100' } },
      { method: 'post', token: 'valid', lang: 'jp', body: { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: 'abc', quantity: '1' } },
      { method: 'post', token: 'valid', body: { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100' } },
      { method: 'post', token: 'valid', body: { symbol: 'NOPE/USDT', side: 'buy', type: 'limit', price: '100', quantity: '1' } },
      { method: 'post', token: 'valid', lang: 'kr', body: { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100', quantity: '100' } },
      { method: 'post', token: 'valid', type: 'json', body: { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: 100, quantity: '1' } },
      { method: 'post', token: 'valid', raw: 'symbol=BTC%2FUSDT&side=buy&side=sell&type=limit&price=1&quantity=1' },
      { method: 'post', token: 'valid', raw: 'symbol=BTC%2FUSDT&side=buy&type=limit&price=100&quantity=100&__proto__=x' },
      { method: 'post', token: 'valid', raw: 'symbol=BTC%2FUSDT&side=buy&type=limit&price=100&quantity=100&__proto__=a&__proto__=b&constructor=c' },
      { method: 'post', token: 'valid', type: 'json', raw: '{"symbol": ' },
      { method: 'post', token: 'valid', type: 'json', raw: '"just a string"' },
      { method: 'put', token: 'valid', body: {} },
      { method: 'put', token: 'valid', body: { order_id: '12x' } },
      { method: 'put', token: 'valid', body: { order_id: '999999999' } },
    ];
    for (const c of cases) {
      const [x, y] = [await send(lane, a.token, c), await send(nest, b.token, c)];
      expect({ case: c, status: x.status, body: x.body }).toEqual({ case: c, status: y.status, body: y.body });
      expect(x.body.code).not.toBe(1);
    }
    // Nothing above changed a balance.
    expect(await coinBalance(lane, a.user.id, USDT)).toEqual({ available: '1000', frozen: '0' });
  });

  it('places and cancels with the same answers; Express never sees the lane routes', async () => {
    const [a, b] = [await trader(lane), await trader(nest)];
    const shape = (body: { data: Record<string, unknown> }) => ({ ...body, data: { ...body.data, order_id: 'id', created_at: 'time', updated_at: 'time' } });
    const place = { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100.5', quantity: '2', client_order_id: 'same-1' };
    const [x, y] = [await send(lane, a.token, { method: 'post', token: 'valid', body: place }), await send(nest, b.token, { method: 'post', token: 'valid', body: place })];
    expect(shape(x.body)).toEqual(shape(y.body));
    expect(x.body).toMatchObject({ code: 1, data: { status: 'waiting' } });
    // Express adds an ETag to what it sends; the lane's answers do not pass through Express.
    expect(y.headers['etag']).toBeDefined();
    expect(x.headers['etag']).toBeUndefined();
    // Both give every answer a request id: the caller's when usable, else a new one.
    expect(x.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(y.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    for (const t of [lane, nest]) expect((await t.http().put('/api/coin/trade').set('x-request-id', 'req-42').send({})).headers['x-request-id']).toBe('req-42');
    // Neither says what serves it (X-Powered-By is off).
    expect(y.headers['x-powered-by']).toBeUndefined();
    expect(x.headers['x-powered-by']).toBeUndefined();

    const [cx, cy] = [
      await send(lane, a.token, { method: 'put', token: 'valid', lang: 'hk', body: { order_id: x.body.data.order_id } }),
      await send(nest, b.token, { method: 'put', token: 'valid', lang: 'hk', body: { order_id: y.body.data.order_id } }),
    ];
    expect(shape(cx.body)).toEqual(shape(cy.body));
    expect(cx.body.data).toMatchObject({ status: 'cancelled', client_order_id: 'same-1', price: '100.5', quantity: '2' });
    expect(await coinBalance(lane, a.user.id, USDT)).toEqual({ available: '1000', frozen: '0' });

    // Multipart bodies are not the lane's: Express answers them as before.
    const multipart = await lane.http().post('/api/coin/trade').set('Authorization', a.token).field('symbol', 'BTC/USDT').field('side', 'buy').field('type', 'limit').field('price', '1').field('quantity', '1');
    expect(multipart.headers['etag']).toBeDefined();
    expect(multipart.body.code).toBe(1);
  });

  it("someone else's live order cannot be cancelled and stays in the book", async () => {
    const [owner, other] = [await trader(lane), await trader(lane)];
    const placed = await send(lane, owner.token, { method: 'post', token: 'valid', body: { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '10', quantity: '1' } });
    const id = placed.body.data.order_id;
    const stranger = await send(lane, other.token, { method: 'put', token: 'valid', body: { order_id: id } });
    expect(stranger.body).toMatchObject({ code: 2103 });
    expect(await coinBalance(lane, owner.user.id, USDT)).toEqual({ available: '990', frozen: '10' });
    expect((await send(lane, owner.token, { method: 'put', token: 'valid', body: { order_id: id } })).body.data.status).toBe('cancelled');
    expect((await send(lane, owner.token, { method: 'put', token: 'valid', body: { order_id: id } })).body).toMatchObject({ code: 2104 });
  });
});

describe('order lane: the same request log as the Nest route', () => {
  type Line = { level?: number; msg?: string; reqId?: string; index?: number; err?: { message?: string }; req?: { id?: string; url?: string; method?: string }; res?: { statusCode?: number } };
  // One app at a time: Nest's static logger is the last app's, so two apps at once would mix their lines.
  it.each(['lane', 'nest'] as const)('%s: at debug the access line with the request id, an unexpected failure logged with it, no token', async (name) => {
    const lines: Line[] = [];
    if (name === 'nest') process.env.FAST_LANE = 'off';
    const t = await startTestApp({ logLevel: 'debug', logStream: { write: (line: string) => void lines.push(JSON.parse(line)) } }).finally(() => delete process.env.FAST_LANE);
    try {
      const u = await registerByEmail(t);
      const post = (path: string, id: string, body: object) => t.http().post(`/api/coin/${path}`).set('Authorization', u.token).set('x-request-id', id).type('json').send(body);
      const refused = await post('trade', `${name}-1`, { symbol: 'BTC/USDT' });
      expect(refused.body.code).toBe(1000);
      // The lane answered it (Express would add an ETag).
      expect(refused.headers['etag'] === undefined).toBe(name === 'lane');
      const access = (id: string) => lines.filter((l) => l.msg === 'request completed' && l.req?.id === id);
      expect(access(`${name}-1`)).toEqual([expect.objectContaining({ level: 20, req: expect.objectContaining({ url: '/api/coin/trade', method: 'POST' }), res: expect.objectContaining({ statusCode: 200 }) })]);

      // A failure of ours (code 9000) is logged at error with the request id, on the single route and in a batch.
      t.app.get(CoinTradeService).place = async () => {
        throw new Error('placing broke');
      };
      const order = { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '10', quantity: '1' };
      const broken = await post('trade', `${name}-2`, order);
      expect(broken.body.code).toBe(9000);
      expect(broken.headers['x-request-id']).toBe(`${name}-2`);
      const batch = await post('batch_trade', `${name}-3`, { orders: [order] });
      expect(batch.body.data.results[0].code).toBe(9000);
      const errors = lines.filter((l) => l.level === 50 && l.err?.message === 'placing broke');
      expect(errors).toEqual([expect.objectContaining({ reqId: `${name}-2` }), expect.objectContaining({ reqId: `${name}-3`, index: 0 })]);
      expect(JSON.stringify(lines)).not.toContain(u.token);
    } finally {
      await t.close();
    }
  });
});
