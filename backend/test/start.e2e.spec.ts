import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { createDatabase, REDIS_URL } from './support/test-app';

const root = join(__dirname, '..', '..');

/** As a new user would: `npm start` (built by `npm test` first), then register, log in, read the profile over HTTP. */
describe('npm start, used as a new user would', () => {
  let child: ChildProcess;
  let output = '';
  let db: Awaited<ReturnType<typeof createDatabase>>;
  const port = 3900 + (process.pid % 90);
  const base = `http://127.0.0.1:${port}/api`;

  beforeAll(async () => {
    if (!existsSync(join(root, 'backend', 'dist', 'main.js'))) throw new Error('run `npm run build` first (npm test does it)');
    db = await createDatabase();
    child = spawn(process.execPath, [join(root, 'infra', 'start.mjs')], {
      cwd: root,
      env: {
        ...process.env,
        SKIP_BUILD: '1',
        PORT: String(port),
        DATABASE_URL: db.url,
        REDIS_URL,
        REDIS_PREFIX: `e2e:${db.name}:`,
        LOG_LEVEL: 'warn',
        ADMIN_EMAIL: '',
        ADMIN_PASSWORD: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
  });

  afterAll(async () => {
    child?.kill('SIGTERM');
    await new Promise((r) => (child?.exitCode !== null ? r(null) : child.once('exit', r)));
    await db?.drop();
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the envelope's data differs per endpoint
  const post = async (path: string, form: Record<string, string>, token?: string): Promise<any> => {
    const res = await fetch(`${base}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', lang: 'en', ...(token ? { Authorization: token } : {}) },
      body: new URLSearchParams(form).toString(),
    });
    return res.json();
  };

  it('answers settings/get with the envelope within 60 s, then register → login → center works', async () => {
    const started = Date.now();
    let settings: { code?: number; data?: { version: string } } = {};
    while (Date.now() - started < 60_000) {
      settings = await post('settings/get', {}).catch(() => ({}));
      if (settings.code === 1) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(settings).toMatchObject({ type: 'ok', code: 1, data: { version: '4.2.9' } });
    // The first start creates the operator account and prints its password once.
    expect(output).toMatch(/Password \(shown only now\): \S{12,}/);

    const email = `newcomer.${process.pid}@kestrel.test`;
    expect(await post('sms_mail', { email, purpose: 'register' })).toMatchObject({ code: 1 });
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const { rows } = await pg.query('SELECT body FROM outbox WHERE recipient = $1', [email]);
    await pg.end();
    const code = /\d{6}/.exec(rows[0].body)![0];

    const reg = await post('user/register', { type: 'email', email, code, password: 'hunter22', re_password: 'hunter22', agreement: '1' });
    expect(reg).toMatchObject({ type: 'ok', code: 1 });
    const login = await post('user/login', { account: email, password: 'hunter22' });
    expect(login).toMatchObject({ type: 'ok', code: 1 });
    const center = await (await fetch(`${base}/user/center`, { headers: { Authorization: login.data.token } })).json();
    expect(center).toMatchObject({ type: 'ok', code: 1, data: { email, account: email } });
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  }, 90_000);
});
