import { Redis } from 'ioredis';
import { REDIS } from '../src/infra/redis/redis.module';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Server, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { API_CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY, cameOverTls, isApiRequest } from '../src/infra/http/security-headers';
import { loadConfig } from '../src/infra/config/config';
import { adminToken, lastCode, registerByEmail, uniqueEmail } from './support/accounts';
import { withEnv } from './support/env';
import { makePng } from './support/images';
import { nestRoutes, Route } from './support/routes';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

/**
 * Abuse limits (issue "Reliability and security suite", item 5): security headers and HTTP 200 on
 * every answer of every route, body caps, the paging cap, and the rate limits with their lock-outs.
 */
const USDT = 3;
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const concrete = (path: string) => path.replace(/:[A-Za-z_]+/g, '1');

/**
 * A page (the web app, its files, the Swagger UI) carries the app's policy and helmet's set; the
 * API's answers (`/api/…`, Socket.IO polling) the data policy `default-src 'none'` and `no-store`.
 */
function expectSecurityHeaders(h: Record<string, string | undefined>, where: string, kind: 'api' | 'page' = 'api'): void {
  const common = [
    ['x-content-type-options', 'nosniff'],
    ['x-frame-options', 'DENY'],
    ['referrer-policy', 'no-referrer'],
    ['cross-origin-resource-policy', 'same-origin'],
  ];
  const own =
    kind === 'api'
      ? [
          ['content-security-policy', API_CONTENT_SECURITY_POLICY],
          ['cache-control', 'no-store'],
        ]
      : [
          ['content-security-policy', CONTENT_SECURITY_POLICY],
          ['cross-origin-opener-policy', 'same-origin'],
          ['x-permitted-cross-domain-policies', 'none'],
        ];
  const missing = [...common, ...own].filter(([k, v]) => h[k] !== v);
  if (missing.length > 0 || h['x-powered-by'] !== undefined) throw new Error(`${where}: headers ${JSON.stringify(h)}`);
  expect(h['content-security-policy']).toContain("frame-ancestors 'none'");
}

describe('security headers and HTTP 200 on every route', () => {
  let t: TestApp;
  let routes: Route[];
  beforeAll(async () => {
    // A web app of our own (the shared frontend/dist may be mid-build while this runs).
    const web = mkdtempSync(join(tmpdir(), 'kestrel-web-'));
    mkdirSync(join(web, 'assets'));
    writeFileSync(
      join(web, 'index.html'),
      '<!doctype html><html><head><script type="module" src="./assets/app.js"></script></head><body><div id="root"></div></body></html>',
    );
    writeFileSync(join(web, 'assets', 'app.js'), 'export {};');
    t = await startTestApp({ optionWorker: false, bodyLimitBytes: 64 * 1024, frontendDist: web });
    routes = nestRoutes(t);
  });
  afterAll(async () => t?.close());

  it('every registered route, called by a visitor and by a token of its kind, answers 200 with the envelope and the headers', async () => {
    const user = await registerByEmail(t);
    const op = await adminToken(t, ADMIN.email, ADMIN.password);
    // Logouts last: the tokens must stay valid for the other routes.
    const ordered = [...routes].sort((a, b) => Number(a.path.includes('logout')) - Number(b.path.includes('logout')));
    let calls = 0;
    for (const r of ordered) {
      for (const token of [undefined, r.kind === 'user' ? user.token : r.kind === 'operator' ? op : undefined]) {
        let req = t.http()[r.method.toLowerCase() as 'get'](concrete(r.path));
        if (token) req = req.set('Authorization', token);
        if (r.method !== 'GET') req = req.type('form').send({});
        const res = await req;
        calls += 1;
        expectSecurityHeaders(res.headers, `${r.method} ${r.path}`, r.path.startsWith('/api/docs') ? 'page' : 'api');
        if (r.path.startsWith('/api/docs')) continue;
        // 200 with the envelope; a plain 404 only for "no such thing" answers Nest gives as NotFound.
        if (res.status !== 200 || typeof res.body?.code !== 'number')
          throw new Error(`${r.method} ${r.path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    expect(calls).toBeGreaterThan(routes.length);
  });

  it('a successful POST is HTTP 200, not 201 (regression guard for DESIGN §5)', async () => {
    const email = uniqueEmail('p');
    const sent = await t.http().post('/api/sms_mail').type('form').send({ email, purpose: 'register' });
    expect([sent.status, sent.body.code]).toEqual([200, 1]);
    const code = await lastCode(t.ds, email);
    const reg = await t
      .http()
      .post('/api/user/register')
      .type('form')
      .send({ type: 'email', email, code, password: 'secret-pass', re_password: 'secret-pass', agreement: '1' });
    expect([reg.status, reg.body.code]).toEqual([200, 1]);
    const login = await t.http().post('/api/user/login').type('form').send({ account: email, password: 'secret-pass' });
    expect([login.status, login.body.code]).toEqual([200, 1]);
  });

  it('the fast lane, the web app, Socket.IO polling, the API docs and an unknown route carry the headers too', async () => {
    const u = await registerByEmail(t);
    const lane = await t
      .http()
      .post('/api/coin/trade')
      .set('Authorization', u.token)
      .type('form')
      .send({ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '1', amount: '1' });
    expect(lane.status).toBe(200);
    expect(lane.headers.etag).toBeUndefined(); // answered by the lane, not Express
    expectSecurityHeaders(lane.headers, 'fast lane POST');
    const cancel = await t.http().put('/api/coin/trade').set('Authorization', u.token).type('form').send({ id: '1' });
    expectSecurityHeaders(cancel.headers, 'fast lane PUT');
    const visitor = await t.http().post('/api/coin/trade').type('json').send('{}');
    expect(visitor.body.code).toBe(401);
    expectSecurityHeaders(visitor.headers, 'fast lane visitor');
    const paths = [
      '/',
      '/index.html',
      '/assets/app.js',
      '/api/docs',
      '/api/docs/swagger-ui-init.js',
      '/api/no-such-route',
      '/socket.io/?EIO=4&transport=polling',
      // Express routes paths in any case: an answer of the API is one whatever the case (regression: a page's headers, no `no-store`).
      '/API/user/center',
      '/Api/Docs',
    ];
    expect(paths.map(isApiRequest)).toEqual([false, false, false, false, false, true, true, true, false]);
    for (const path of paths) {
      const res = await t.http().get(path);
      expectSecurityHeaders(res.headers, path, isApiRequest(path) ? 'api' : 'page');
    }
    expect((await t.http().get('/')).text).toContain('<div id="root">');
    expect((await t.http().get('/api/no-such-route')).status).toBe(404);
  });

  it("Express's own 404 and error pages keep frame-ancestors 'none' (regression: their policy replaced ours)", async () => {
    for (const path of ['/no-such-page', '/assets/missing.js', '/%E0%A4%A']) {
      const res = await t.http().get(path);
      expect([path, res.status < 500]).toEqual([path, true]);
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('the web app needs nothing the policy forbids: no inline script or handler, no eval, only allowed origins', () => {
    const root = join(__dirname, '..', '..', 'frontend');
    const pages = [join(root, 'index.html'), join(root, 'dist', 'index.html')].filter((f) => existsSync(f));
    expect(pages.length).toBeGreaterThan(0);
    for (const file of pages) {
      const html = readFileSync(file, 'utf8');
      for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect([file, tag, /\ssrc=/.test(tag)]).toEqual([file, tag, true]);
      expect([file, /\son[a-z]+\s*=/i.test(html)]).toEqual([file, false]);
      expect([file, /<style\b/i.test(html)]).toEqual([file, false]);
      // Every script and stylesheet comes from this origin (relative URLs).
      for (const m of html.matchAll(/\s(?:src|href)="([^"]+)"/g)) expect([file, m[1]]).toEqual([file, expect.stringMatching(/^(\.?\/|data:)/)]);
    }
    const assets = join(root, 'dist', 'assets');
    if (existsSync(assets)) {
      for (const f of readdirSync(assets).filter((n) => n.endsWith('.js'))) {
        const js = readFileSync(join(assets, f), 'utf8');
        expect([f, /\bnew Function\(|[^.\w]eval\(/.test(js)]).toEqual([f, false]);
      }
    }
  });

  it('HSTS only when the request came over TLS (directly or through a trusted proxy saying X-Forwarded-Proto: https)', async () => {
    const plain = await t.http().get('/api/health');
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    const proxied = await t.http().get('/api/health').set('X-Forwarded-Proto', 'https');
    expect(proxied.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    const lane = await t.http().post('/api/coin/trade').set('X-Forwarded-Proto', 'https').type('form').send({});
    expect(lane.headers['strict-transport-security']).toBeDefined();
    // A proxy we do not trust cannot claim TLS.
    const fake = { socket: { remoteAddress: '203.0.113.9' }, headers: { 'x-forwarded-proto': 'https' } } as never;
    expect(cameOverTls(fake, () => false)).toBe(false);
    expect(cameOverTls({ socket: { encrypted: true }, headers: {} } as never, () => false)).toBe(true);
  });

  it('bodies over the cap are the envelope with code 1004 (JSON, form, multipart, fast lane), never a 413', async () => {
    const u = await registerByEmail(t);
    const big = 'x'.repeat(70 * 1024);
    const expectTooLarge = (res: request.Response, max: string, where: string) => {
      expect([where, res.status, res.body.type, res.body.code]).toEqual([where, 200, 'error', 1004]);
      expect(res.body.message).toBe(`The request is too large: at most ${max}`);
      expectSecurityHeaders(res.headers, where);
    };
    expectTooLarge(
      await t
        .http()
        .post('/api/user/login')
        .type('json')
        .send(JSON.stringify({ account: big })),
      '64 KB',
      'json',
    );
    expectTooLarge(await t.http().post('/api/user/login').type('form').send(`account=${big}`), '64 KB', 'form');
    expectTooLarge(await t.http().post('/api/coin/trade').set('Authorization', u.token).type('form').send(`symbol=${big}`), '64 KB', 'fast lane form');
    expectTooLarge(
      await t
        .http()
        .post('/api/coin/trade')
        .set('Authorization', u.token)
        .type('json')
        .send(JSON.stringify({ symbol: big })),
      '64 KB',
      'fast lane json',
    );
    const file = Buffer.concat([makePng(2, 2), Buffer.alloc(5 * 1024 * 1024)]);
    expectTooLarge(
      await t.http().post('/api/upload/image').set('Authorization', u.token).attach('file', file, { filename: 'a.png', contentType: 'image/png' }),
      '5 MB',
      'multipart file',
    );
    let many = t.http().post('/api/upload/image').set('Authorization', u.token);
    for (let i = 0; i < 5; i++) many = many.attach(`f${i}`, makePng(), { filename: `${i}.png`, contentType: 'image/png' });
    expect((await many).body.code).toBe(1004);
    // Multipart on a route that takes no file: its fields only, within the form limit; a file, or a
    // body over that limit, is refused from its declared length before anything is buffered.
    expectTooLarge(
      await t.http().post('/api/user/login').attach('file', makePng(), { filename: 'a.png', contentType: 'image/png' }),
      '64 KB',
      'multipart file where none is taken',
    );
    expectTooLarge(await t.http().post('/api/user/login').field('account', big).field('password', 'p'), '64 KB', 'multipart fields over the form limit');
    const zh = await t
      .http()
      .post('/api/user/login')
      .set('lang', 'zh')
      .type('json')
      .send(JSON.stringify({ account: big }));
    expect(zh.body.message).toBe('请求内容过大：最多 64 KB');
    // Under the cap the same request is read normally.
    expect(
      (
        await t
          .http()
          .post('/api/user/login')
          .type('form')
          .send({ account: 'x'.repeat(100), password: 'p' })
      ).body.code,
    ).not.toBe(1004);
  });

  it('a file route answers a caller with no valid token before reading its file (regression: the file was held in memory before the login check)', async () => {
    const server = t.app.getHttpServer() as Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Declares a 5 MB upload, sends its first kilobyte and waits: only an answer that needs none of
    // the rest can arrive.
    const answerToPartialUpload = (path: string, authorization: string) =>
      new Promise<{ code: number }>((resolve, reject) => {
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: { 'Content-Type': 'multipart/form-data; boundary=b', 'Content-Length': String(5 * 1024 * 1024), Authorization: authorization },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => {
            req.destroy();
            resolve(JSON.parse(body) as { code: number });
          });
        });
        req.on('error', reject);
        req.write(`--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n${'x'.repeat(1024)}`);
      });
    for (const path of ['/api/upload/image', '/api/admin/nft/images', '/api/admin/news/images']) {
      expect([path, (await answerToPartialUpload(path, '')).code]).toEqual([path, 401]);
      expect([path, (await answerToPartialUpload(path, 'not-a-token')).code]).toEqual([path, 401]);
    }
  });

  it('a value the checks let through but the database cannot hold is bad input (1000), never a server error (regression: 9000)', async () => {
    const u = await registerByEmail(t);
    const op = await adminToken(t, ADMIN.email, ADMIN.password);
    const cases: Array<[string, request.Test, number]> = [
      ['nft/list id past the column', t.http().get('/api/nft/list').query({ id: '3000000000' }), 1000],
      ['nft/list id 1e21', t.http().get('/api/nft/list').query({ id: '1e21' }), 1000],
      ['newcoin config', t.http().get('/api/lh/newcoin/config').query({ id: '3000000000' }), 1000],
      ['wallet/log currency', t.http().get('/api/wallet/log').set('Authorization', u.token).query({ currency_id: '3000000000' }), 1000],
      ['help/chat after', t.http().get('/api/help/chat').set('Authorization', u.token).query({ after: '1e21' }), 1000],
      ['operator path id', t.http().post('/api/admin/deposits/3000000000/approve').set('Authorization', op).type('form').send({ reason: 'x' }), 1000],
      [
        'kline range past year 9999',
        t.http().post('/api/kline/historyV3').type('form').send({ symbol: 'BTC/USDT', period: '1min', from: '1000000000000000' }),
        1000,
      ],
      ['news image id of 36 hex digits', t.http().get(`/api/news/image/${'a'.repeat(36)}`), 2904],
    ];
    for (const [name, req, code] of cases) expect([name, (await req).body.code]).toEqual([name, code]);
  });

  it('a route that takes no fields refuses a body with one as an unknown field and does nothing (regression: notice/read_all {id} read every message)', async () => {
    const u = await registerByEmail(t);
    const unread = async () => (await t.http().get('/api/notice/unread').set('Authorization', u.token)).body;
    const before = await unread();
    const routes = [
      ['/api/notice/read_all', u.token],
      ['/api/user/has_password', u.token],
      ['/api/settings/get', undefined],
    ] as const;
    const post = (path: string, token: string | undefined) => (token ? t.http().post(path).set('Authorization', token) : t.http().post(path));
    for (const [path, token] of routes) {
      const refused = await post(path, token)
        .type('json')
        .send(JSON.stringify({ id: 5 }));
      expect([path, refused.body]).toMatchObject([path, { code: 1001, message: 'Unknown field: id' }]);
    }
    expect(await unread()).toEqual(before);
    for (const [path, token] of routes) expect([path, (await post(path, token)).body.code]).toEqual([path, 1]);
  });

  it('a limit above the maximum is a validation error on every paged list (none answers a page)', async () => {
    const user = await registerByEmail(t);
    const op = await adminToken(t, ADMIN.email, ADMIN.password);
    // GET lists take paging in the query, POST lists (the app's wallet/list style) in the form body.
    const gets = routes.filter(
      (r) => (r.method === 'GET' || r.method === 'POST') && !r.path.includes(':') && !r.path.startsWith('/api/docs') && !r.path.includes('logout'),
    );
    const pagedOk: string[] = [];
    let paged = 0;
    for (const r of gets) {
      const token = r.kind === 'user' ? user.token : r.kind === 'operator' ? op : undefined;
      const get = (limit: number) => {
        const req = r.method === 'GET' ? t.http().get(r.path).query({ limit }) : t.http().post(r.path).type('form').send({ limit });
        return token ? req.set('Authorization', token) : req;
      };
      const ok = await get(20);
      // A paged list answers Page<T>: {items, total, page, limit} (fixed lists such as a top-10 ranking take no paging).
      if (ok.body.code !== 1 || !Array.isArray(ok.body.data?.items) || ok.body.data.limit === undefined) continue;
      paged += 1;
      const over = await get(101);
      if (over.body.code !== 1000) pagedOk.push(`${r.path}: ${JSON.stringify(over.body).slice(0, 120)}`);
    }
    expect(pagedOk).toEqual([]);
    expect(paged).toBeGreaterThan(10);
    const one = await t.http().get('/api/news/list').query({ limit: 101 });
    expect(one.body).toMatchObject({ type: 'error', code: 1000 });
    expect(one.body.message).toBe('limit must be a whole number from 1 to 100 (items per page)');
    expect((await t.http().get('/api/news/list').query({ limit: 0 })).body.code).toBe(1000);
    expect((await t.http().get('/api/news/list').query({ limit: 100 })).body.code).toBe(1);
  });
});

describe('rate limits and lock-outs', () => {
  let t: TestApp;
  let ip = 0;
  // Each test comes from its own address (the app trusts the loopback proxy's X-Forwarded-For).
  const nextIp = () => `198.51.100.${++ip}`;
  beforeAll(async () => {
    t = await startTestApp({
      optionWorker: false,
      uploadRateLimit: { limit: 3, windowSeconds: 60 },
      rateLimits: {
        loginPerIp: { limit: 5, windowSeconds: 60 },
        loginPerAccount: { limit: 3, windowSeconds: 60 },
        loginPerAccountAll: { limit: 5, windowSeconds: 60 },
        registerPerIp: { limit: 2, windowSeconds: 60 },
        codePerIp: { limit: 4, windowSeconds: 60 },
        codePerTarget: { limit: 2, windowSeconds: 60 },
        codeGuessPerTarget: { limit: 3, windowSeconds: 60 },
        codeGuessPerAddress: { limit: 2, windowSeconds: 60 },
        fundPassword: { limit: 3, windowSeconds: 600 },
        withdrawPerUser: { limit: 3, windowSeconds: 60 },
        flashQuotePerUser: { limit: 3, windowSeconds: 60 },
        helpPerUser: { limit: 3, windowSeconds: 60 },
        lookupPerIp: { limit: 5, windowSeconds: 60 },
      } as never,
    });
  });
  afterAll(async () => t?.close());

  /** Registers from `from` (code send + register: one code and one registration from that address). */
  async function register(from: string) {
    const email = uniqueEmail('r');
    expect((await t.http().post('/api/sms_mail').set('X-Forwarded-For', from).type('form').send({ email, purpose: 'register' })).body.code).toBe(1);
    const code = await lastCode(t.ds, email);
    const res = await t
      .http()
      .post('/api/user/register')
      .set('X-Forwarded-For', from)
      .type('form')
      .send({ type: 'email', email, code, password: 'secret-pass', re_password: 'secret-pass', agreement: '1' });
    return { res, email, password: 'secret-pass' };
  }
  const users = async () => Number((await t.ds.query('SELECT COUNT(*)::int AS n FROM users'))[0].n);

  it('registration per IP: the third from one address is refused (1002) and creates nobody', async () => {
    const from = nextIp();
    expect((await register(from)).res.body.code).toBe(1);
    expect((await register(from)).res.body.code).toBe(1);
    const before = await users();
    const third = await register(from);
    expect(third.res.body).toMatchObject({ type: 'error', code: 1002 });
    expect(third.res.body.message).toMatch(/^Too many attempts\. Please try again in \d+ seconds$/);
    expect(await users()).toBe(before);
    expect((await register(nextIp())).res.body.code).toBe(1); // another address is not affected
  });

  it('code sending per recipient and per IP', async () => {
    const email = uniqueEmail('c');
    const send = (to: string, from: string) =>
      t.http().post('/api/sms_mail').set('X-Forwarded-For', from).type('form').send({ email: to, purpose: 'register' });
    // Per recipient: 2 per window, whatever the address.
    const perTarget: number[] = [];
    for (let i = 0; i < 3; i++) {
      perTarget.push((await send(email, nextIp())).body.code);
      await t.ds.query("UPDATE verification_codes SET created_at = created_at - interval '10 minutes' WHERE target = $1", [email]).catch(() => undefined);
    }
    expect(perTarget).toEqual([1, 1, 1002]);
    // Per IP: 4 per window, whatever the recipient.
    const from = nextIp();
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await send(uniqueEmail('c'), from)).body.code);
    expect(codes).toEqual([1, 1, 1, 1, 1002]);
  });

  it("a resend refused by the 60 s guard does not use up the recipient's codes (regression: rapid requests spent the hour's quota, blocking recovery)", async () => {
    const email = uniqueEmail('q');
    const send = () => t.http().post('/api/sms_mail').set('X-Forwarded-For', nextIp()).type('form').send({ email, purpose: 'register' });
    const age = () => t.ds.query(`UPDATE verification_codes SET created_at = created_at - interval '10 minutes' WHERE target = $1`, [email]);
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await send()).body.code);
    expect(codes).toEqual([1, 1104, 1104, 1104, 1104]);
    await age();
    expect((await send()).body.code).toBe(1); // the second code sent: within RATE_LIMIT_CODE_TARGET (2)
    await age();
    expect((await send()).body.code).toBe(1002); // a third would be over it
    const [{ n }] = await t.ds.query('SELECT COUNT(*)::int AS n FROM outbox WHERE recipient = $1', [email]);
    expect(n).toBe(2);
  });

  it("anyone's `forget` codes for an account do not use up its signed-in owner's codes (regression: one quota per contact, so a stranger kept the owner from a fund password or a new address)", async () => {
    const { res, email } = await register(nextIp());
    const token = res.body.data.token as string;
    const age = () => t.ds.query(`UPDATE verification_codes SET created_at = created_at - interval '10 minutes' WHERE target = $1`, [email]);
    const forget = async () => (await t.http().post('/api/sms_mail').set('X-Forwarded-For', nextIp()).type('form').send({ email, purpose: 'forget' })).body.code;
    // The registration's code and one `forget` code spend the contact's quota (2 here).
    const codes: number[] = [];
    for (let i = 0; i < 2; i++) {
      codes.push(await forget());
      await age();
    }
    expect(codes).toEqual([1, 1002]);
    const own = (purpose: string) => t.http().post('/api/sms_mail').set('Authorization', token).set('X-Forwarded-For', nextIp()).type('form').send({ purpose });
    expect((await own('fund_password')).body.code).toBe(1);
    await age();
    expect((await own('address')).body.code).toBe(1);
    await age();
    expect((await own('fund_password')).body.code).toBe(1002); // the owner's own quota (2 here)
  });

  it('wrong codes are limited per recipient over all its codes, as login passwords are: per address, then one try per address; the owner from a clean address still gets in (regression: five per code, and new codes for the asking)', async () => {
    const { email } = await register(nextIp());
    const reset = async (code: string, from: string) =>
      (
        await t
          .http()
          .post('/api/user/forget')
          .set('X-Forwarded-For', from)
          .type('form')
          .send({ type: 'email', email, code, password: 'other-pass', re_password: 'other-pass' })
      ).body.code;
    // No code sent yet: nothing to guess, nothing counted (2 per address here).
    const idle = nextIp();
    for (let i = 0; i < 4; i++) expect(await reset('000000', idle)).toBe(1102);
    expect((await t.http().post('/api/sms_mail').set('X-Forwarded-For', nextIp()).type('form').send({ email, purpose: 'forget' })).body.code).toBe(1);
    const right = await lastCode(t.ds, email);
    const wrong = right === '000000' ? '111111' : '000000';
    // One address: 2 wrong tries, then refused unchecked, the right code too.
    const a = nextIp();
    expect([await reset(wrong, a), await reset(wrong, a), await reset(right, a)]).toEqual([1102, 1102, 1002]);
    // The recipient's budget from every address (3 here) is spent by a third: then each address gets one try.
    const b = nextIp();
    expect([await reset(wrong, b), await reset(right, b)]).toEqual([1102, 1002]);
    const c = nextIp();
    expect([await reset(wrong, c), await reset(right, c)]).toEqual([1102, 1002]);
    // The owner, from an address with no wrong try, resets with the right code: strangers cannot lock them out.
    expect(await reset(right, nextIp())).toBe(1);
    expect((await t.http().post('/api/user/login').set('X-Forwarded-For', nextIp()).type('form').send({ account: email, password: 'other-pass' })).body.code).toBe(1);
  });

  it('login per account and per IP; a refused login changes nothing and does not check the password', async () => {
    const { email, password } = await register(nextIp()).then((r) => ({ email: r.email, password: r.password }));
    const login = (account: string, pass: string, from: string) =>
      t.http().post('/api/user/login').set('X-Forwarded-For', from).type('form').send({ account, password: pass });
    const from = nextIp();
    const results: number[] = [];
    for (let i = 0; i < 4; i++) results.push((await login(email, i < 3 ? 'wrong-pass' : password, from)).body.code);
    expect(results).toEqual([1106, 1106, 1106, 1002]); // the right password is refused too once over, from that address
    expect((await login(email, password, nextIp())).body.code).toBe(1); // the owner elsewhere is not locked out
    const ipLimited = nextIp();
    const perIp: number[] = [];
    for (let i = 0; i < 6; i++) perIp.push((await login(uniqueEmail('nobody'), 'wrong-pass', ipLimited)).body.code);
    expect(perIp.slice(0, 5).every((c) => c !== 1002)).toBe(true);
    expect(perIp[5]).toBe(1002);
    // Operators' logins are counted the same way: a stranger's wrong passwords lock out only their own address.
    const adminLogin = (pass: string, at: string) =>
      t.http().post('/api/admin/login').set('X-Forwarded-For', at).type('form').send({ email: ADMIN.email, password: pass });
    const adminFrom = nextIp();
    const admin: number[] = [];
    for (let i = 0; i < 4; i++) admin.push((await adminLogin(i < 3 ? 'wrong-password-1' : ADMIN.password, adminFrom)).body.code);
    expect(admin).toEqual([1106, 1106, 1106, 1002]);
    expect((await adminLogin(ADMIN.password, nextIp())).body.code).toBe(1);
  });

  it('an account spelled to name another account’s count at an address is an account of its own (regression: "<e-mail>:ip:<address>" spent the owner’s count there and locked them out)', async () => {
    const { email, password } = await register(nextIp()).then((r) => ({ email: r.email, password: r.password }));
    const login = (account: string, pass: string, from: string) =>
      t.http().post('/api/user/login').set('X-Forwarded-For', from).type('form').send({ account, password: pass });
    const owners = nextIp();
    const attacker = nextIp();
    for (let i = 0; i < 4; i++) expect((await login(`${email}:ip:${owners}`, 'wrong-pass', attacker)).body.code).not.toBe(1);
    expect((await login(email, password, owners)).body.code).toBe(1);
  });

  it('wrong passwords from many addresses spend the account-wide budget: then an address gets one guess, and the owner from a clean address still logs in', async () => {
    const { email, password } = await register(nextIp()).then((r) => ({ email: r.email, password: r.password }));
    const login = (pass: string, from: string) => t.http().post('/api/user/login').set('X-Forwarded-For', from).type('form').send({ account: email, password: pass });
    const early = nextIp();
    const spending: number[] = [await login('wrong-pass', early).then((r) => r.body.code)];
    for (let i = 0; i < 4; i++) spending.push((await login('wrong-pass', nextIp())).body.code);
    expect(spending).toEqual([1106, 1106, 1106, 1106, 1106]); // five addresses, one wrong guess each: the budget (5) is spent
    const late = nextIp();
    expect((await login('wrong-pass', late)).body.code).toBe(1106); // a fresh address still gets its one guess
    expect((await login(password, late)).body.code).toBe(1002); // and no second, the right password too
    expect((await login(password, early)).body.code).toBe(1002); // an address with a wrong guess in its window has none left
    expect((await login(password, nextIp())).body.code).toBe(1); // the owner from a clean address gets in
  });

  it('login per account counts every spelling of one phone number as one account (regression: each spelling had its own count)', async () => {
    const from = nextIp();
    const login = (account: string) => t.http().post('/api/user/login').set('X-Forwarded-For', from).type('form').send({ account, password: 'wrong-pass' });
    const codes: number[] = [];
    for (const account of ['13800138077', '138-0013-8077', '+13800138077', '1 3800 138077']) codes.push((await login(account)).body.code);
    expect(codes).toEqual([1106, 1106, 1106, 1002]);
  });

  it('one national number in two countries is two accounts with two counts (regression: guesses at one spent the other’s), and no spelling names an account’s count', async () => {
    const phone = `6${String(Date.now()).slice(-8)}`;
    const registerPhone = async (area: string) => {
      const from = nextIp();
      expect((await t.http().post('/api/sms_send').set('X-Forwarded-For', from).type('form').send({ phone, area_code: area, purpose: 'register' })).body.code).toBe(1);
      const code = await lastCode(t.ds, `+${area} ${phone}`);
      const res = await t
        .http()
        .post('/api/user/register')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ type: 'phone', phone, area_code: area, code, password: 'secret-pass', re_password: 'secret-pass', agreement: '1' });
      expect(res.body.code).toBe(1);
    };
    await registerPhone('34');
    await registerPhone('31');
    const from = nextIp();
    const login = async (area: string, password: string) =>
      (await t.http().post('/api/user/login').set('X-Forwarded-For', from).type('form').send({ account: phone, area_code: area, password })).body.code;
    const wrong: number[] = [];
    for (let i = 0; i < 4; i++) wrong.push(await login('31', 'wrong-pass'));
    expect(wrong).toEqual([1106, 1106, 1106, 1002]); // the +31 account's count at this address (3 here)
    expect(await login('34', 'secret-pass')).toBe(1); // the +34 account's is its own
    // "user:<id>" typed as an account names no account's count: the +31 owner still logs in from that address.
    const [{ id }] = await t.ds.query(`SELECT id FROM users WHERE phone = $1 AND area_code = '31'`, [phone]);
    const other = nextIp();
    const spelled: number[] = [];
    for (let i = 0; i < 3; i++)
      spelled.push((await t.http().post('/api/user/login').set('X-Forwarded-For', other).type('form').send({ account: `user:${id}`, password: 'x' })).body.code);
    expect(spelled).toEqual([1106, 1106, 1106]);
    expect((await t.http().post('/api/user/login').set('X-Forwarded-For', other).type('form').send({ account: phone, area_code: '31', password: 'secret-pass' })).body.code).toBe(1);
  });

  it('account lookups are limited per IP (regression: anyone could list accounts in bulk)', async () => {
    const from = nextIp();
    const codes: number[] = [];
    for (let i = 0; i < 5; i++)
      codes.push(
        (
          await t
            .http()
            .post('/api/user/check_email')
            .set('X-Forwarded-For', from)
            .type('form')
            .send({ email: uniqueEmail('l') })
        ).body.code,
      );
    codes.push((await t.http().post('/api/user/check_mobile').set('X-Forwarded-For', from).type('form').send({ phone: '13800138078' })).body.code);
    expect(codes).toEqual([1, 1, 1, 1, 1, 1002]);
  });

  it('a code sent to register or recover, and the password reset, count as lookups too (regression: their answers told accounts apart with no limit)', async () => {
    const from = nextIp();
    // Each answer says whether the account exists (1107: none), so each is counted like check_email.
    const recoverCode = () =>
      t
        .http()
        .post('/api/sms_mail')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ email: uniqueEmail('n'), purpose: 'forget' });
    const reset = () =>
      t
        .http()
        .post('/api/user/forget')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ type: 'email', email: uniqueEmail('n'), code: '000000', password: 'secret-pass', re_password: 'secret-pass' });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await recoverCode()).body.code);
    for (let i = 0; i < 2; i++) codes.push((await reset()).body.code);
    codes.push((await recoverCode()).body.code, (await reset()).body.code);
    codes.push(
      (
        await t
          .http()
          .post('/api/sms_mail')
          .set('X-Forwarded-For', from)
          .type('form')
          .send({ email: uniqueEmail('n'), purpose: 'register' })
      ).body.code,
    );
    expect(codes).toEqual([1107, 1107, 1107, 1107, 1107, 1002, 1002, 1002]);
    expect(
      (
        await t
          .http()
          .post('/api/user/check_email')
          .set('X-Forwarded-For', from)
          .type('form')
          .send({ email: uniqueEmail('l') })
      ).body.code,
    ).toBe(1002);
  });

  it('a registration counts as a lookup too, before the account is looked up (regression: its 1105 told accounts apart with no code and no lookup limit)', async () => {
    const { email } = await register(nextIp());
    const from = nextIp();
    const again = () =>
      t
        .http()
        .post('/api/user/register')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ type: 'email', email, code: '000000', password: 'secret-pass', re_password: 'secret-pass', agreement: '1' });
    const codes: number[] = [];
    // registerPerIp (2) would stop a third registration first: the lookups are spent on check_email before.
    for (let i = 0; i < 4; i++)
      codes.push(
        (
          await t
            .http()
            .post('/api/user/check_email')
            .set('X-Forwarded-For', from)
            .type('form')
            .send({ email: uniqueEmail('l') })
        ).body.code,
      );
    codes.push((await again()).body.code, (await again()).body.code);
    expect(codes).toEqual([1, 1, 1, 1, 1105, 1002]);
  });

  it('wrong current passwords sent in parallel get no more checks than the limit (regression: each read the count before any was added)', async () => {
    const { res } = await register(nextIp());
    const token = res.body.data.token as string;
    const codes = await Promise.all(
      Array.from({ length: 10 }, () =>
        t
          .http()
          .post('/api/safe/update_password')
          .set('Authorization', token)
          .type('form')
          .send({ old_password: 'wrong-old', password: 'new-pass-123', re_password: 'new-pass-123' }),
      ),
    ).then((answers) => answers.map((a) => a.body.code));
    expect(codes.filter((c) => c === 1110)).toHaveLength(3);
    expect(codes.filter((c) => c === 1002)).toHaveLength(7);
  });

  it('changing the login password: wrong current passwords are limited per user (regression: they were unlimited)', async () => {
    const { res, password } = await register(nextIp());
    const token = res.body.data.token as string;
    const change = (old: string) =>
      t
        .http()
        .post('/api/safe/update_password')
        .set('Authorization', token)
        .type('form')
        .send({ old_password: old, password: 'new-pass-123', re_password: 'new-pass-123' });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await change('wrong-old')).body.code);
    codes.push((await change(password)).body.code);
    expect(codes).toEqual([1110, 1110, 1110, 1002]);
  });

  it('fund password: wrong guesses say how many are left, then a lock-out names the time it ends, even for the right password', async () => {
    const r = await register(nextIp());
    const u = { email: r.email, token: r.res.body.data.token as string };
    await t.ds.query(`UPDATE users SET fund_password_hash = NULL WHERE email = $1`, [u.email]);
    await setFundPasswordQuiet(u);
    const add = (password: string) =>
      t
        .http()
        .post('/api/wallet/addaddress')
        .set('Authorization', u.token)
        .type('form')
        .send({ currency_id: USDT, chain: 'TRC20', address: TRON, password, code: '000000' });
    const first = await add('111111');
    expect(first.body).toMatchObject({ code: 2205, data: { attempts_left: 2 } });
    expect((await add('222222')).body).toMatchObject({ code: 2205, data: { attempts_left: 1 } });
    const third = await add('333333');
    expect(third.body).toMatchObject({ type: 'error', code: 1005 });
    const until = new Date(third.body.data.until).getTime();
    expect(until).toBeGreaterThan(Date.now() + 590_000);
    expect(until).toBeLessThan(Date.now() + 610_000);
    expect(third.body.message).toBe(
      `Too many wrong fund passwords. Fund password entry is locked until ${third.body.data.until.slice(0, 19).replace('T', ' ')} (UTC)`,
    );
    const right = await add('135790');
    expect(right.body.code).toBe(1005);
    const zh = await add('135790').set('lang', 'zh');
    expect(zh.body.message).toMatch(/^资金密码错误次数过多，资金密码输入已锁定至 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d（UTC）$/);
    // Withdrawals share the lock.
    const out = await t.http().post('/api/wallet/out').set('Authorization', u.token).type('form').send({ address_id: 1, amount: '10', password: '135790' });
    expect([2202, 1005, 2216]).toContain(out.body.code);
    expect(await t.ds.query('SELECT id FROM withdraw_addresses WHERE user_id = (SELECT id FROM users WHERE email = $1)', [u.email])).toEqual([]);
  });

  it('fund password: parallel wrong guesses get no more checks than the limit (regression: each read the count before any was added)', async () => {
    const r = await register(nextIp());
    const u = { email: r.email, token: r.res.body.data.token as string };
    await setFundPasswordQuiet(u);
    const guesses = Array.from({ length: 12 }, (_, i) => String(200000 + i));
    const answers = await Promise.all(
      guesses.map((password) =>
        t
          .http()
          .post('/api/wallet/addaddress')
          .set('Authorization', u.token)
          .type('form')
          .send({ currency_id: USDT, chain: 'TRC20', address: TRON, password, code: '000000' }),
      ),
    );
    const codes = answers.map((a) => a.body.code).sort();
    // Three checked (limit 3): two say how many are left, the third locks; the other nine are refused unchecked.
    expect(codes.filter((c) => c === 2205)).toHaveLength(2);
    expect(codes.filter((c) => c === 1005)).toHaveLength(10);
    // The refused guesses were never counted: the window holds the three checked ones.
    const id = r.res.body.data.user.id as number;
    expect(await t.app.get<Redis>(REDIS).get(`rl:fund-password:${id}`)).toBe('3');
    expect(
      (
        await t
          .http()
          .post('/api/wallet/addaddress')
          .set('Authorization', u.token)
          .type('form')
          .send({ currency_id: USDT, chain: 'TRC20', address: TRON, password: '135790', code: '000000' })
      ).body.code,
    ).toBe(1005);
  });

  async function setFundPasswordQuiet(u: { email: string; token: string }) {
    await t.http().post('/api/sms_mail').set('X-Forwarded-For', nextIp()).set('Authorization', u.token).type('form').send({ purpose: 'fund_password' });
    const code = await lastCode(t.ds, u.email);
    const res = await t.http().post('/api/user/e_pwd').set('Authorization', u.token).type('form').send({ password: '135790', re_password: '135790', code });
    expect(res.body.code).toBe(1);
  }

  it('withdrawal requests per user: every request counts, refused or not; then 1002 and nothing is frozen', async () => {
    const r = await register(nextIp());
    const token = r.res.body.data.token as string;
    await setFundPasswordQuiet({ email: r.email, token });
    const codes: number[] = [];
    for (let i = 0; i < 4; i++)
      codes.push(
        (await t.http().post('/api/wallet/out').set('Authorization', token).type('form').send({ address_id: 1, amount: '10', password: '135790' })).body.code,
      );
    expect(codes.slice(0, 3)).toEqual([2202, 2202, 2202]); // real-name verification first
    expect(codes[3]).toBe(1002);
    expect(await t.ds.query('SELECT id FROM withdrawals WHERE user_id = $1', [r.res.body.data.user.id])).toEqual([]);
  });

  it('uploads per user', async () => {
    const r = await register(nextIp());
    const token = r.res.body.data.token as string;
    const codes: number[] = [];
    for (let i = 0; i < 4; i++)
      codes.push(
        (await t.http().post('/api/upload/image').set('Authorization', token).attach('file', makePng(), { filename: 'a.png', contentType: 'image/png' })).body
          .code,
      );
    expect(codes).toEqual([1, 1, 1, 1002]);
  });

  it('flash-exchange quotes per user: every quote counts, priced or not; then 1002 (regression: unlimited, each kept an hour)', async () => {
    const r = await register(nextIp());
    const token = r.res.body.data.token as string;
    const quote = () =>
      t.http().post('/api/fpjy/quote').set('Authorization', token).type('form').send({ from_currency_id: 3, to_currency_id: 2, amount: '10' });
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await quote()).body.code);
    expect(codes.slice(0, 3).every((c) => c !== 1002)).toBe(true);
    expect(codes[3]).toBe(1002);
  });

  it('help-centre writes per user: feedback and chat messages share one count; then 1002 and no row (regression: unlimited rows)', async () => {
    const r = await register(nextIp());
    const token = r.res.body.data.token as string;
    const userId = r.res.body.data.user.id as number;
    const feedback = () =>
      t.http().post('/api/help/feedback').set('Authorization', token).type('form').send({ category: 'other', content: 'the chart is slow' });
    const chat = () => t.http().post('/api/help/chat/send').set('Authorization', token).type('form').send({ text: 'hello' });
    const codes = [
      (await feedback()).body.code,
      (await chat()).body.code,
      (await feedback()).body.code,
      (await chat()).body.code,
      (await feedback()).body.code,
    ];
    expect(codes).toEqual([1, 1, 1, 1002, 1002]);
    expect(await t.ds.query('SELECT count(*)::int AS n FROM help_feedback WHERE user_id = $1', [userId])).toEqual([{ n: 2 }]);
  });

  it('limits are validated configuration: a malformed or zero rule stops the start', () => {
    for (const [name, value] of [
      ['RATE_LIMIT_WITHDRAW_USER', 'ten'],
      ['RATE_LIMIT_LOGIN_IP', '0/60'],
      ['BODY_LIMIT_BYTES', '10'],
    ]) {
      withEnv(name, value, () => expect(() => loadConfig()).toThrow(name));
    }
    expect(loadConfig().rateLimits.withdrawPerUser).toEqual({ limit: 20, windowSeconds: 3600 });
  });
});
