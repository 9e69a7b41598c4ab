import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { TokenService } from '../src/infra/auth/token.service';
import { SeedService } from '../src/modules/reference/seed.service';
import { adminToken, registerByEmail } from './support/accounts';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

/**
 * The operator API's guards (review of the admin routes): the outbox of users' codes is closed
 * unless a setting opens it, ADMIN_PASSWORD replaces a changed operator password on start and ends
 * its sessions, USD keeps its rate, concurrent creates of one period or pricing currency answer
 * 1000, a non-numeric path id answers 1000 everywhere, and IEO windows take real dates only.
 */
describe('operator API', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
  });
  afterAll(() => t?.close());

  const get = (token: string, path: string) => t.http().get(`/api/${path}`).set('Authorization', token);
  const post = (token: string, path: string, body: Record<string, unknown> = {}) =>
    t.http().post(`/api/${path}`).set('Authorization', token).type('form').send(body);

  it('GET admin/outbox answers 1006 unless ADMIN_OUTBOX_READ is on (the default), showing nothing and recording no read', async () => {
    const u = await registerByEmail(t);
    const res = await get(admin, 'admin/outbox').query({ recipient: u.email });
    expect(res.body).toEqual({ type: 'error', code: 1006, message: 'Reading the outbox is turned off on this server (ADMIN_OUTBOX_READ)', data: null });
    expect(res.text).not.toMatch(/\b\d{6}\b/);
    expect(await t.ds.query(`SELECT type FROM events WHERE stream_id LIKE 'admin:%'`)).toEqual([]);
  });

  it('a changed ADMIN_PASSWORD replaces the operator password on the next start and ends its sessions; an unchanged one changes nothing', async () => {
    const start = (adminPassword: string) => new SeedService(t.ds, t.app.get(TokenService), { ...t.config, adminPassword }).seed();
    const login = (password: string) => t.http().post('/api/admin/login').type('form').send({ email: ADMIN.email, password });
    const old = await adminToken(t, ADMIN.email, ADMIN.password);
    try {
      await start('a-new-operator-pass');
      expect((await get(old, 'admin/users')).body.code).toBe(401);
      expect((await login(ADMIN.password)).body.code).toBe(1106);
      const fresh = (await login('a-new-operator-pass')).body.data.token as string;
      expect((await get(fresh, 'admin/users')).body.code).toBe(1);
      // The same password on the next start: the hash stays, and so do the sessions.
      const [before] = await t.ds.query('SELECT password_hash FROM admins WHERE email = $1', [ADMIN.email]);
      await start('a-new-operator-pass');
      expect((await t.ds.query('SELECT password_hash FROM admins WHERE email = $1', [ADMIN.email]))[0]).toEqual(before);
      expect((await get(fresh, 'admin/users')).body.code).toBe(1);
    } finally {
      await start(ADMIN.password);
      admin = await adminToken(t, ADMIN.email, ADMIN.password);
    }
  });

  it('USD stays 1 USDT and enabled: a new rate or disabling it answers 1000, its name and order can still change', async () => {
    const fixed = 'USD is fixed at 1 USDT and always offered: its rate cannot be changed and it cannot be disabled';
    expect((await post(admin, 'admin/fiat-rates', { code: 'USD', rate: '1.1', reason: 'typo' })).body).toMatchObject({ code: 1000, message: fixed });
    expect((await post(admin, 'admin/fiat-rates', { code: 'USD', rate: '1', enabled: 'false', reason: 'hide' })).body).toMatchObject({
      code: 1000,
      message: fixed,
    });
    expect((await post(admin, 'admin/fiat-rates', { code: 'USD', rate: '1', enabled: '0', reason: 'hide' })).body).toMatchObject({
      code: 1000,
      message: fixed,
    });
    // Sent as a JSON null, `enabled` is refused, not taken as "false" (regression: USD was saved disabled, and every wallet view without a pricing currency failed).
    const asNull = await t.http().post('/api/admin/fiat-rates').set('Authorization', admin).send({ code: 'USD', rate: '1', enabled: null, reason: 'x' });
    expect(asNull.body).toMatchObject({ code: 1000 });
    expect((await post(admin, 'admin/fiat-rates', { code: 'USD', rate: '1.00', sort: 0, reason: 'first in the list' })).body).toMatchObject({
      code: 1,
      data: { code: 'USD', rate: '1' },
    });
    expect(await t.ds.query(`SELECT rate::text, enabled FROM fiat_rates WHERE code = 'USD'`)).toEqual([{ rate: '1.00000000', enabled: true }]);
    expect((await t.http().get('/api/coin/rate').query({ code: 'USD' })).body.data).toMatchObject({ code: 'USD', rate: '1' });
  });

  /**
   * `request` runs while another session has run `statement` and not committed; once a query like
   * `waiting` (not any other session's lock wait: a background job's) waits on a lock, the other
   * session commits. The request's answer.
   */
  async function whileUncommitted(statement: string, waiting: string, request: () => Promise<{ body: { code: number; message: string; data?: unknown } }>) {
    const other = new Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(statement);
      const pending = request();
      for (let i = 0; i < 200; i++) {
        const [{ n }] = await t.ds.query(
          `SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1`,
          [waiting],
        );
        if (n > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await other.query('COMMIT');
      return (await pending).body;
    } finally {
      await other.end();
    }
  }

  /** `create` runs while another session has inserted the same key and not committed: the request's insert waits on the unique index, then loses. */
  const losingCreate = (insert: string, create: () => Promise<{ body: { code: number; message: string } }>) => whileUncommitted(insert, 'INSERT INTO%', create);

  it('a concurrent create of the same option period or pricing currency answers 1000 "already exists" to the later one (not 9000), changing nothing', async () => {
    const exists = 'This already exists: it was just created by another request. Check it and try again';
    const period = await losingCreate(
      `INSERT INTO option_periods (seconds, profit_ratio, min_qty, max_qty, fee_rate, sort) VALUES (777, '0.1', '10', '100', '0', 777)`,
      () => post(admin, 'admin/option-periods', { seconds: 777, profit_ratio: '0.5', min_qty: '1', max_qty: '5', reason: 'new period' }).then((r) => r),
    );
    expect(period).toMatchObject({ code: 1000, message: exists });
    expect(await t.ds.query(`SELECT profit_ratio::text FROM option_periods WHERE seconds = 777`)).toEqual([
      { profit_ratio: expect.stringMatching(/^0\.10*$/) },
    ]);

    const rate = await losingCreate(`INSERT INTO fiat_rates (code, name, symbol, rate, sort) VALUES ('ZZX', 'Zed', 'Z', '2', 9)`, () =>
      post(admin, 'admin/fiat-rates', { code: 'ZZX', name: 'Zed two', symbol: 'Z', rate: '3', reason: 'new currency' }).then((r) => r),
    );
    expect(rate).toMatchObject({ code: 1000, message: exists });
    expect(await t.ds.query(`SELECT name, rate::text FROM fiat_rates WHERE code = 'ZZX'`)).toEqual([{ name: 'Zed', rate: '2.00000000' }]);
    expect(
      await t.ds.query(`SELECT type FROM events WHERE stream_id IN ('fiat-rate:ZZX') OR (type = 'OptionPeriodSet' AND payload->>'seconds' = '777')`),
    ).toEqual([]);
  });

  it('an option period set while another edit of it is uncommitted is made on that edit, and records it as the previous terms', async () => {
    await t.ds.query(`INSERT INTO option_periods (seconds, profit_ratio, min_qty, max_qty, fee_rate, sort) VALUES (778, '0.1', '10', '100', '0', 778)`);
    // This operator only closes the period (no fee_rate: the fee stays as it is) while another's fee change is uncommitted.
    const answer = await whileUncommitted(`UPDATE option_periods SET fee_rate = '0.02' WHERE seconds = 778`, '%option_periods%', () =>
      post(admin, 'admin/option-periods', { seconds: 778, profit_ratio: '0.1', min_qty: '10', max_qty: '100', enabled: '0', reason: 'close' }).then((r) => r),
    );
    // Regression: it read the period before the other edit committed, answered the old fee and recorded it as the previous one.
    expect(answer).toMatchObject({ code: 1, data: { seconds: 778, fee_rate: '0.02', enabled: false } });
    expect(await t.ds.query(`SELECT fee_rate::text, enabled FROM option_periods WHERE seconds = 778`)).toEqual([
      { fee_rate: expect.stringMatching(/^0\.020*$/), enabled: false },
    ]);
    const [e] = await t.ds.query(`SELECT payload FROM events WHERE type = 'OptionPeriodSet' AND payload->>'seconds' = '778'`);
    expect(e.payload.previous).toMatchObject({ fee_rate: '0.02', enabled: true });
  });

  it('a non-numeric {id} in a loan, NFT or help operator route answers 1000 "Invalid request"', async () => {
    const cases: Array<[string, string, Record<string, unknown>?]> = [
      ['GET', 'admin/loan/orders/abc'],
      ['POST', 'admin/loan/orders/abc/approve', { reason: 'ok' }],
      ['POST', 'admin/loan/orders/abc/reject', { reason: 'no' }],
      ['POST', 'admin/loan/repayments/abc/approve', { reason: 'ok' }],
      ['POST', 'admin/loan/repayments/1x/reject', { reason: 'no' }],
      ['POST', 'admin/loan/products/abc', { reason: 'edit' }],
      ['POST', 'admin/nft/collections/abc/items', { name: 'X', image_id: randomUUID(), reason: 'mint' }],
      ['POST', 'admin/nft/items/abc/price', { price: '10', reason: 'list' }],
      ['POST', 'admin/nft/items/1.5/withdraw', { reason: 'withdraw' }],
      ['GET', 'admin/help/conversations/abc'],
      ['POST', 'admin/help/conversations/abc/reply', { text: 'hello' }],
      ['POST', 'admin/help/conversations/abc/close'],
      ['POST', 'admin/help/feedback/abc/reply', { text: 'hello' }],
    ];
    const wrong: string[] = [];
    for (const [method, path, body] of cases) {
      const res =
        method === 'GET' ? await get(admin, path) : await (body ? post(admin, path, body) : t.http().post(`/api/${path}`).set('Authorization', admin));
      if (res.body.code !== 1000 || res.body.message !== 'Invalid request') wrong.push(`${method} ${path}: ${res.body.code} ${res.body.message}`);
    }
    expect(wrong).toEqual([]);
  });

  it('an IEO window takes real dates with a time zone only: 2027-02-31 or a time without a zone answers 1000', async () => {
    const window = 'Enter a valid subscription period: the end must be after the start';
    const create = (over: Record<string, unknown>) =>
      post(admin, 'admin/ieo', {
        symbol: 'DATEX',
        name: 'Date coin',
        decimals: 2,
        price: '0.5',
        supply: '1000',
        start_at: '2027-02-27T00:00:00Z',
        end_at: '2027-03-10T00:00:00Z',
        min_qty: '10',
        max_qty: '1000',
        reason: 'listing',
        ...over,
      });
    for (const bad of [
      { start_at: '2027-02-31T00:00:00Z' },
      { end_at: '2027-02-29T12:00:00+08:00' },
      { start_at: '2027-02-27T00:00:00' },
      { end_at: '2027-03-10' },
    ])
      expect((await create(bad)).body).toMatchObject({ code: 1000, message: window });
    expect(await t.ds.query(`SELECT id FROM coins WHERE symbol = 'DATEX'`)).toEqual([]);
    const made = await create({});
    expect(made.body).toMatchObject({ code: 1, data: { start_at: '2027-02-27T00:00:00.000Z' } });
    expect((await post(admin, `admin/ieo/${made.body.data.id}`, { end_at: '2027-02-31T00:00:00Z', reason: 'extend' })).body).toMatchObject({
      code: 1000,
      message: window,
    });
  });
});
