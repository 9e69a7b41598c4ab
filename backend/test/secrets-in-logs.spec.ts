import { createHash } from 'node:crypto';
import { format } from 'node:util';
import { adminToken, lastCode, registerByEmail, setFundPassword, uniqueEmail, verifyBasic } from './support/accounts';
import { deposit } from './support/funding';
import { makePng } from './support/images';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

/**
 * Secrets and tokens never logged (issue "Reliability and security suite", item 5): a whole flow
 * at log level `trace` (register with a code, log in, a wrong login, set the fund password, an
 * address and a withdrawal with it, a wrong fund password, change the login password, operator
 * login and approvals, an upload, orders through the fast lane and through Nest, a body over the
 * cap, a bad token, logout), with every log line captured: pino's destination, plus anything
 * written to stdout, stderr or the console. None of the passwords, fund passwords, verification
 * codes, tokens (the Authorization values) or stored password hashes used may appear.
 */
const USDT = 3;
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe('secrets and tokens never reach the logs', () => {
  let t: TestApp;
  const lines: string[] = [];
  const sink = { write: (line: string) => void lines.push(line) };
  const restore: Array<() => void> = [];

  beforeAll(async () => {
    // Everything the process writes, whatever writes it.
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write;
      restore.push(() => (stream.write = write));
    }
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const spy = jest.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(format(...args)));
      restore.push(() => spy.mockRestore());
    }
    t = await startTestApp({ optionWorker: false, logLevel: 'trace', logStream: sink });
  });
  afterAll(async () => {
    await t?.close();
    for (const r of restore) r();
  });

  it('a full run at log level trace logs none of the passwords, codes, tokens or hashes it used', async () => {
    const secrets = new Map<string, string>();
    const keep = (what: string, value: string) => secrets.set(value, what);
    const post = (path: string, token: string | undefined, body: Record<string, unknown>) => {
      const req = t.http().post(`/api/${path}`).type('form');
      return (token ? req.set('Authorization', token) : req).send(body);
    };

    // Registration with a code, then login (and a wrong one).
    const password = 'Login-Secret-4711';
    const u = await registerByEmail(t, uniqueEmail('log'), password);
    keep('login password', password);
    keep('registration token', u.token);
    const login = await post('user/login', undefined, { account: u.email, password });
    expect(login.body.code).toBe(1);
    const token = login.body.data.token as string;
    keep('login token', token);
    const wrong = 'Wrong-Guess-9182';
    keep('wrong login password', wrong);
    expect((await post('user/login', undefined, { account: u.email, password: wrong })).body.code).toBe(1106);

    // Operator: login, real-name approval; the user funded, fund password, address, withdrawal.
    keep('operator password', ADMIN.password);
    const op = await adminToken(t, ADMIN.email, ADMIN.password);
    keep('operator token', op);
    const wrongOp = 'Operator-Wrong-5521';
    keep('wrong operator password', wrongOp);
    expect((await post('admin/login', undefined, { email: ADMIN.email, password: wrongOp })).body.code).not.toBe(1);
    await verifyBasic(t, { token }, op);
    await deposit(t, u.user.id, USDT, '1000');
    const fundPassword = '864209';
    keep('fund password', fundPassword);
    await setFundPassword(t, { email: u.email, token }, fundPassword);
    expect((await post('sms_mail', token, { purpose: 'address' })).body.code).toBe(1);
    const addressCode = await lastCode(t.ds, u.email);
    const added = await post('wallet/addaddress', token, { currency_id: USDT, chain: 'TRC20', address: TRON, password: fundPassword, code: addressCode });
    expect(added.body.code).toBe(1);
    const wrongFund = '975318';
    keep('wrong fund password', wrongFund);
    expect((await post('wallet/out', token, { address_id: added.body.data.id, amount: '20', password: wrongFund })).body.code).toBe(2205);
    const out = await post('wallet/out', token, { address_id: added.body.data.id, amount: '20', password: fundPassword });
    expect(out.body.code).toBe(1);
    // The same request as JSON, and one over the body cap carrying the fund password.
    const json = await t.http().post('/api/wallet/out').set('Authorization', token).type('json').send({ address_id: added.body.data.id, amount: '11', password: fundPassword });
    expect(json.body.code).toBe(1);
    const huge = await t.http().post('/api/wallet/out').set('Authorization', token).type('form').send(`password=${fundPassword}&pad=${'x'.repeat(1_100_000)}`);
    expect(huge.body.code).toBe(1004);

    // An upload and orders: through the fast lane (form and JSON) and a cancel; a Nest order route.
    const up = await t.http().post('/api/upload/image').set('Authorization', token).attach('file', makePng(), { filename: 'a.png', contentType: 'image/png' });
    expect(up.body.code).toBe(1);
    const placed = await t.http().post('/api/coin/trade').set('Authorization', token).type('form').send({ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100', quantity: '1' });
    expect(placed.body.code).toBe(1);
    const placedJson = await t.http().post('/api/coin/trade').set('Authorization', `Bearer ${token}`).type('json').send({ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '99', quantity: '1' });
    expect(placedJson.body.code).toBe(1);
    const cancel = await t.http().put('/api/coin/trade').set('Authorization', token).type('form').send({ id: String(placed.body.data.id ?? placed.body.data.order_id ?? '') });
    expect(cancel.body.type).toBeDefined();
    const batch = await t.http().post('/api/coin/batch_trade').set('Authorization', token).type('json').send({ orders: [{ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '98', quantity: '1' }] });
    expect(batch.body.code).toBe(1);
    expect((await t.http().get('/api/coin/list').set('Authorization', token)).body.code).toBe(1);

    // A token that is not one, and a token on an unknown route.
    const fake = 'Not-A-Token-But-Secret-0123456789';
    keep('invalid token', fake);
    expect((await t.http().get('/api/user/center').set('Authorization', fake)).body.code).toBe(401);
    await t.http().get('/api/no-such-route').set('Authorization', token);

    // Changing the login password (a wrong current one first), logging in again, logging out.
    const newPassword = 'Changed-Secret-2024';
    keep('new login password', newPassword);
    expect((await post('safe/update_password', token, { old_password: wrong, password: newPassword, re_password: newPassword })).body.code).toBe(1110);
    expect((await post('safe/update_password', token, { old_password: password, password: newPassword, re_password: newPassword })).body.code).toBe(1);
    const again = await post('user/login', undefined, { account: u.email, password: newPassword });
    expect(again.body.code).toBe(1);
    keep('token after the change', again.body.data.token);
    expect((await post('user/logout', again.body.data.token, {})).body.code).toBe(1);

    // Every code sent in this run, and the stored hashes.
    for (const row of await t.ds.query('SELECT body FROM outbox')) for (const m of (row.body as string).matchAll(/\b\d{6}\b/g)) keep('verification code', m[0]);
    const [hashes] = await t.ds.query('SELECT password_hash, fund_password_hash FROM users WHERE id = $1', [u.user.id]);
    keep('password hash', hashes.password_hash);
    keep('fund password hash', hashes.fund_password_hash);
    keep('sha-256 of the login token', createHash('sha256').update(token).digest('hex'));

    await new Promise((r) => setTimeout(r, 300)); // the last response lines
    const log = lines.join('');
    // The capture works: request lines, with the Authorization header censored.
    expect(lines.length).toBeGreaterThan(50);
    expect(log).toContain('"authorization":"[Redacted]"');
    expect(log).toContain('/api/wallet/out');

    const codes = [...secrets.entries()].filter(([, what]) => what === 'verification code').length;
    expect(codes).toBeGreaterThanOrEqual(3);
    // Digits-only secrets must stand alone (not inside a timestamp, id or hash); the rest as they are.
    const found = [...secrets.entries()]
      .filter(([value]) => (/^\d+$/.test(value) ? new RegExp(`(?<![0-9A-Za-z])${value}(?![0-9A-Za-z])`).test(log) : log.includes(value)))
      .map(([value, what]) => `${what} (${value.slice(0, 6)}…)`);
    expect(found).toEqual([]);
  });
});
