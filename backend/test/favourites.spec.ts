import { registerByEmail } from './support/accounts';
import { startTestApp, TestApp } from './support/test-app';

type Answer = { type: string; code: number; message: string; data: { symbols: string[] } | null };

/** Markets-tab favourites on real PostgreSQL: per user, idempotent, unknown markets refused without a change, visitors refused. */
describe('market favourites (real PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
  });
  afterAll(async () => {
    await t.close();
  });

  const post = async (token: string, path: string, body: Record<string, unknown>, lang = 'en') =>
    (await t.http().post(`/api/${path}`).set('Authorization', token).set('lang', lang).type('form').send(body)).body as Answer;
  const list = async (token: string) => (await t.http().get('/api/market/favorites').set('Authorization', token).set('lang', 'en')).body as Answer;

  it('adds, lists and removes per user; an unknown symbol is a clear error and changes nothing', async () => {
    const a = await registerByEmail(t);
    const b = await registerByEmail(t);
    expect((await list(a.token)).data).toEqual({ symbols: [] });

    expect((await post(a.token, 'market/favorites/add', { symbol: 'ETH/USDT' })).data).toEqual({ symbols: ['ETH/USDT'] });
    expect((await post(a.token, 'market/favorites/add', { symbol: 'btc/usdt' })).data).toEqual({ symbols: ['ETH/USDT', 'BTC/USDT'] });
    // Adding twice keeps one row.
    const again = await post(a.token, 'market/favorites/add', { symbol: 'ETH/USDT' });
    expect(again.code).toBe(1);
    expect(again.data).toEqual({ symbols: ['ETH/USDT', 'BTC/USDT'] });
    // Another user's list is their own.
    expect((await list(b.token)).data).toEqual({ symbols: [] });
    expect((await post(b.token, 'market/favorites/add', { symbol: 'BTC/USDT' })).data).toEqual({ symbols: ['BTC/USDT'] });

    const bad = await post(a.token, 'market/favorites/add', { symbol: 'NOPE/USDT' });
    expect(bad).toMatchObject({ type: 'error', code: 3100, data: null });
    expect(bad.message).toBe('No market NOPE/USDT to add to or remove from favourites');
    expect((await post(a.token, 'market/favorites/add', { symbol: 'NOPE/USDT' }, 'zh')).message).toBe('没有可收藏或取消收藏的交易对 NOPE/USDT');
    const empty = await post(a.token, 'market/favorites/add', { symbol: '' });
    expect(empty.code).not.toBe(1);
    expect((await post(a.token, 'market/favorites/remove', { symbol: 'NOPE/USDT' })).code).toBe(3100);
    expect((await list(a.token)).data).toEqual({ symbols: ['ETH/USDT', 'BTC/USDT'] });

    expect((await post(a.token, 'market/favorites/remove', { symbol: 'ETH/USDT' })).data).toEqual({ symbols: ['BTC/USDT'] });
    expect((await post(a.token, 'market/favorites/remove', { symbol: 'ETH/USDT' })).data).toEqual({ symbols: ['BTC/USDT'] });
    expect((await list(a.token)).data).toEqual({ symbols: ['BTC/USDT'] });
    expect((await list(b.token)).data).toEqual({ symbols: ['BTC/USDT'] });
  });

  it('favourites of markets no longer listed take no place in the 200 (regression: hidden and not removable, they filled the list for good)', async () => {
    const u = await registerByEmail(t);
    // 200 favourites of markets since delisted (ids no market has).
    await t.ds.query('INSERT INTO market_favorites (user_id, market_id) SELECT $1, 900000 + g FROM generate_series(1, 200) g', [u.user.id]);
    expect((await list(u.token)).data).toEqual({ symbols: [] });
    expect((await post(u.token, 'market/favorites/add', { symbol: 'BTC/USDT' })).data).toEqual({ symbols: ['BTC/USDT'] });
  });

  it('refuses a visitor', async () => {
    const r = await t.http().get('/api/market/favorites').set('lang', 'en');
    expect(r.body).toMatchObject({ type: '999', code: 401 });
    const add = await t.http().post('/api/market/favorites/add').type('form').send({ symbol: 'BTC/USDT' });
    expect(add.body).toMatchObject({ type: '999', code: 401 });
  });
});
