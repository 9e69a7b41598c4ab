import { hashPassword } from '../src/infra/auth/password';
import { adminToken, registerByEmail } from './support/accounts';
import { inOpenTransaction } from './support/open-transaction';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

describe('tokens, admin separation and the /api contract', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The outbox read (GET admin/outbox) is opened here, as ADMIN_OUTBOX_READ=on does; it is off by default (operator-api.spec.ts).
    t = await startTestApp({ adminOutboxRead: true, rateLimits: { loginPerAccount: { limit: 3, windowSeconds: 60 } } as never });
  });
  afterAll(() => t.close());

  it('an operator login overlapping a rotation of the operator password gets no token (regression: its token, issued after the rotation ended every session, stayed valid)', async () => {
    const [{ password_hash: before }] = await t.ds.query('SELECT password_hash FROM admins WHERE email = $1', [ADMIN.email]);
    try {
      await inOpenTransaction(t.ds, async (rotation) => {
        await rotation.query('UPDATE admins SET password_hash = $2 WHERE email = $1', [ADMIN.email, await hashPassword('rotated-pass-1')]);
        const login = t
          .http()
          .post('/api/admin/login')
          .type('form')
          .send({ email: ADMIN.email, password: ADMIN.password })
          .then((r) => r);
        await new Promise((r) => setTimeout(r, 1500));
        await rotation.commitTransaction();
        expect((await login).body.code).toBe(1106);
      });
    } finally {
      await t.ds.query('UPDATE admins SET password_hash = $2 WHERE email = $1', [ADMIN.email, before]);
    }
  });

  it('a user token is refused by /api/admin/*', async () => {
    const u = await registerByEmail(t);
    for (const path of ['/api/admin/users', '/api/admin/outbox', '/api/admin/ledger/trial-balance']) {
      const res = await t.http().get(path).set('Authorization', u.token);
      expect(res.body).toEqual({ type: '999', code: 401, message: 'Please log in first', data: null });
    }
  });

  it('an operator logs out: that token opens no admin route after it, another session of theirs still does', async () => {
    const [ending, other] = [await adminToken(t, ADMIN.email, ADMIN.password), await adminToken(t, ADMIN.email, ADMIN.password)];
    expect((await t.http().get('/api/admin/users').set('Authorization', ending)).body.code).toBe(1);
    expect((await t.http().post('/api/admin/logout').set('Authorization', ending)).body).toMatchObject({ type: 'ok', code: 1, message: 'Logged out' });
    expect((await t.http().get('/api/admin/users').set('Authorization', ending)).body.code).toBe(401);
    expect((await t.http().post('/api/admin/logout').set('Authorization', ending)).body.code).toBe(401);
    expect((await t.http().get('/api/admin/users').set('Authorization', other)).body.code).toBe(1);
    // A user token cannot end an operator session (or anything else on /api/admin).
    const u = await registerByEmail(t);
    expect((await t.http().post('/api/admin/logout').set('Authorization', u.token)).body.code).toBe(401);
  });

  it('an admin token is refused by user endpoints, and works for the admin API', async () => {
    const token = await adminToken(t, ADMIN.email, ADMIN.password);
    expect((await t.http().get('/api/user/center').set('Authorization', token)).body.code).toBe(401);
    expect((await t.http().post('/api/user/has_password').set('Authorization', `Bearer ${token}`)).body.code).toBe(401);
    const u = await registerByEmail(t);
    const users = await t.http().get('/api/admin/users').query({ search: u.email }).set('Authorization', token);
    expect(users.body.code).toBe(1);
    expect(users.body.data.items.map((x: { id: number }) => x.id)).toEqual([u.user.id]);
    const outbox = await t.http().get('/api/admin/outbox').query({ recipient: u.email, limit: 5 }).set('Authorization', token);
    expect(outbox.body.data.items[0]).toMatchObject({ channel: 'email', recipient: u.email, purpose: 'register' });
    // Each read (ADMIN_OUTBOX_READ on) is recorded with the operator and the messages it showed.
    const [{ id: adminId }] = await t.ds.query('SELECT id FROM admins WHERE email = $1', [ADMIN.email]);
    const reads = await t.ds.query(`SELECT type, payload, metadata->>'actor' AS actor FROM events WHERE stream_id = $1 ORDER BY seq`, [`admin:${adminId}`]);
    expect(reads).toEqual([
      {
        type: 'OutboxRead',
        actor: `admin:${adminId}`,
        payload: { recipient: u.email, page: 1, limit: 5, messageIds: outbox.body.data.items.map((m: { id: string }) => m.id) },
      },
    ]);
  });

  it('an expired or revoked token gets code 401', async () => {
    const u = await registerByEmail(t);
    expect((await t.http().get('/api/user/center').set('Authorization', u.token)).body.code).toBe(1);
    await t.ds.query(`UPDATE auth_tokens SET expires_at = now() - interval '1 second' WHERE subject_type = 'user' AND subject_id = $1`, [u.user.id]);
    expect((await t.http().get('/api/user/center').set('Authorization', u.token)).body).toMatchObject({ type: '999', code: 401 });

    const login = await t.http().post('/api/user/login').type('form').send({ account: u.email, password: u.password });
    const token = login.body.data.token;
    expect((await t.http().get('/api/user/center2').set('Authorization', token)).body.code).toBe(1);
    expect((await t.http().post('/api/user/logout').set('Authorization', token)).body.code).toBe(1);
    expect((await t.http().get('/api/user/center2').set('Authorization', token)).body.code).toBe(401);
    expect((await t.http().get('/api/user/center2')).body.code).toBe(401);
  });

  it('tokens are opaque, at least 128 random bits, and stored hashed', async () => {
    const u = await registerByEmail(t);
    expect(Buffer.from(u.token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const rows = await t.ds.query('SELECT token_hash FROM auth_tokens WHERE subject_id = $1', [u.user.id]);
    expect(rows.map((r: { token_hash: string }) => r.token_hash)).not.toContain(u.token);
  });

  it('rate-limits login per account', async () => {
    const u = await registerByEmail(t);
    for (let i = 0; i < 3; i++)
      expect((await t.http().post('/api/user/login').type('form').send({ account: u.email, password: 'wrong-pass' })).body.code).toBe(1106);
    const limited = await t.http().post('/api/user/login').type('form').send({ account: u.email, password: u.password });
    expect(limited.body.code).toBe(1002);
    expect(limited.body.message).toMatch(/Too many attempts/);
  });

  it('wrong logins lock out the address they come from, not the account (regression: anyone could keep an owner locked out)', async () => {
    const u = await registerByEmail(t);
    const login = (password: string, from: string) =>
      t.http().post('/api/user/login').set('X-Forwarded-For', from).type('form').send({ account: u.email, password });
    const codes: number[] = [];
    for (let i = 0; i < 10; i++) codes.push((await login('wrong-pass', '203.0.113.7')).body.code);
    expect(codes).toEqual([1106, 1106, 1106, 1002, 1002, 1002, 1002, 1002, 1002, 1002]);
    // The guessing address is refused unchecked, the right password too (under RATE_LIMIT_LOGIN_IP, so by the account's count)...
    expect((await login(u.password, '203.0.113.7')).body.code).toBe(1002);
    // ...while the owner, from anywhere else, logs in; right passwords are not counted.
    for (let i = 0; i < 4; i++) expect((await login(u.password, '203.0.113.8')).body.code).toBe(1);
    // A wrong one from there still has its own count: the owner's address is not locked by the other's.
    expect((await login('wrong-pass', '203.0.113.8')).body.code).toBe(1106);
  });

  it('an unknown route is a plain HTTP 404, never the envelope', async () => {
    const res = await t.http().post('/api/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body.code).toBeUndefined();
  });

  it('accepts JSON and multipart as well as form bodies; a broken body is a clear error', async () => {
    expect((await t.http().post('/api/user/check_email').send({ email: 'x@y.zz' })).body).toMatchObject({ code: 1, data: { registered: false } });
    expect((await t.http().post('/api/user/check_email').field('email', 'x@y.zz')).body).toMatchObject({ code: 1, data: { registered: false } });
    const broken = await t.http().post('/api/user/login').set('content-type', 'application/json').send('{"account":');
    expect(broken.status).toBe(200);
    expect(broken.body).toMatchObject({ type: 'error', code: 1000 });
    const wrongTypes = await t
      .http()
      .post('/api/user/login')
      .send({ account: 5, password: ['x'] });
    expect(wrongTypes.body).toMatchObject({ code: 1000, message: 'Account is required' });
  });

  it('health, settings, languages and area codes answer in the envelope', async () => {
    expect((await t.http().get('/api/health')).body.data).toMatchObject({ postgres: 'up', redis: 'up' });
    const settings = await t.http().post('/api/settings/get');
    expect(settings.body).toMatchObject({ type: 'ok', code: 1, data: { version: '4.2.9', code: 329, store_version: '1.0.0', default_lang: 'en' } });
    expect(settings.body.data.languages.map((l: { code: string }) => l.code).sort()).toEqual(['en', 'hk', 'jp', 'kr', 'py', 'ty', 'zh']);
    expect((await t.http().post('/api/set/lang').type('form').send({ lang: 'xx' })).body.code).toBe(1000);
    const u = await registerByEmail(t);
    expect((await t.http().post('/api/set/lang').set('Authorization', u.token).type('form').send({ lang: 'jp' })).body.code).toBe(1);
    expect((await t.http().post('/api/get/lang').set('Authorization', u.token)).body.data.lang).toBe('jp');
    const areas = await t.http().post('/api/area_code');
    expect(areas.body.data).toEqual(expect.arrayContaining([{ iso: 'CN', code: '86', name: 'China' }]));
    const docs = await t.http().get('/api/docs-json');
    expect(Object.keys(docs.body.paths)).toEqual(expect.arrayContaining(['/api/user/register', '/api/admin/ledger/trial-balance']));
    // Two body classes of one name would share one schema, and one route would show the other's rules.
    const bodyOf = (path: string) => {
      const ref: string = docs.body.paths[path].post.requestBody.content['application/json'].schema.$ref;
      return docs.body.components.schemas[ref.replace('#/components/schemas/', '')];
    };
    expect(bodyOf('/api/admin/real_name/{id}/reject').properties.reason).toMatchObject({ maxLength: 255, description: 'Shown to the user' });
    expect(bodyOf('/api/admin/withdrawals/{id}/reject').properties.reason).toEqual({ type: 'string', description: 'Shown to the user' });
    expect(bodyOf('/api/admin/wealth/products/{id}/close').properties.reason).toMatchObject({ description: 'Why (kept with the event)' });
  });

  it('seeds the reference data of the spec', async () => {
    expect(await t.ds.query('SELECT id, symbol FROM coins ORDER BY id')).toEqual([
      { id: 1, symbol: 'BTC' },
      { id: 2, symbol: 'ETH' },
      { id: 3, symbol: 'USDT' },
    ]);
    const chains = await t.ds.query(`SELECT c.symbol, t.chain, t.deposit_address FROM chain_types t JOIN coins c ON c.id = t.currency_id ORDER BY t.id`);
    expect(chains.map((r: { symbol: string; chain: string }) => `${r.symbol}:${r.chain}`)).toEqual([
      'USDT:TRC20',
      'USDT:OMNI',
      'USDT:ERC20',
      'USDT:BEP20',
      'BTC:OMNI',
      'BTC:BITCOIN',
      'ETH:ERC20',
    ]);
    expect(chains.every((r: { deposit_address: string }) => r.deposit_address === '')).toBe(true);
    const markets = await t.ds.query('SELECT symbol, tick_size::text, lot_size::text FROM markets ORDER BY sort');
    expect(markets.map((m: { symbol: string }) => m.symbol)).toEqual(['BTC/USDT', 'ETH/USDT']);
  });
});
