import { spawn, type ChildProcess } from 'node:child_process';
import { PNG } from 'pngjs';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../backend/test/support/server-process';

/**
 * The real stack for the browser tests: `backend/dist/main.js` (which serves `frontend/dist` at `/`)
 * on a fresh database, loopback only, with the market simulator on so the home screen has live
 * tickers. Services from DATABASE_URL / REDIS_URL, default the local ones (as the medium tier).
 */
const root = join(__dirname, '..', '..');
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const ADMIN = { email: 'ops@kestrel.test', password: 'operator-pass-1' };

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function sql(text: string): Promise<void> {
  const c = new Client({ connectionString: withDatabase(SERVER_URL, 'postgres') });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

export interface Stack {
  url: string;
  stop: () => Promise<void>;
  /** An error with this message and the end of the server's output (warnings and errors): what a failure says. */
  failure: (message: string) => Error;
}

export async function startStack(opts: { simulator?: boolean } = {}): Promise<Stack> {
  for (const f of ['backend/dist/main.js', 'frontend/dist/index.html'])
    if (!existsSync(join(root, f))) throw new Error(`${f} is missing: run \`npm run build\` first (npm test does it)`);
  const db = `kestrel_e2e_${process.pid}_${randomBytes(3).toString('hex')}`;
  await sql(`CREATE DATABASE "${db}"`);
  // A port nothing listens on now: one derived from the pid met another service's (NATS on 4222) in CI.
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [join(root, 'backend', 'dist', 'main.js')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: withDatabase(SERVER_URL, db),
      REDIS_URL,
      REDIS_PREFIX: `e2e:${db}:`,
      LOG_LEVEL: 'warn',
      // The projector thread at the process's own priority: here it shares two cores with browsers and
      // other test workers, all at nice 0, beside which a nice-10 thread went without a core for seconds
      // and the sequencer refused commands (2106). A server of its own keeps the default (docs/operations.md).
      ENGINE_PROJECTOR_NICE: '0',
      MARKET_SIMULATOR: opts.simulator === false ? 'off' : 'on',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      // The tests read verification codes at GET /api/admin/outbox (off unless on: docs/operations.md).
      ADMIN_OUTBOX_READ: 'on',
      RATE_LIMIT_REGISTER_IP: '1000/60',
      RATE_LIMIT_CODE_IP: '1000/60',
      RATE_LIMIT_LOOKUP_IP: '1000/60',
      RATE_LIMIT_LOGIN_IP: '1000/60',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // E2E_SERVER_LOG=<file>: the servers' output (warnings and errors) is appended there too, to diagnose a failure.
  const keep = (d: Buffer) => {
    output += d;
    if (process.env.E2E_SERVER_LOG) appendFileSync(process.env.E2E_SERVER_LOG, d);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const exited = new Promise((r) => child.once('exit', r));
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await sql(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`).catch(() => undefined);
  };
  const started = Date.now();
  // The last answer (or connection error) of the readiness check, for the failure message.
  let last = 'no answer yet';
  while (Date.now() - started < 60_000) {
    const up = await fetch(`${url}/api/settings/get`, { method: 'POST' }).then(
      (r) => ((last = `HTTP ${r.status}`), r.ok),
      (err: Error) => ((last = `${err.message}${err.cause ? ` (${String((err.cause as Error).message ?? err.cause)})` : ''}`), false),
    );
    if (up) return { url, stop, failure: (message) => new Error(`${message}\nthe server's output:\n${output.slice(-4000)}`) };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`the stack did not start within 60 s (POST ${url}/api/settings/get: ${last}):\n${output.slice(-4000)}`);
}

/** The newest verification code sent to `recipient`, read from the operator outbox API. */
export async function latestCode(url: string, recipient: string, purpose: string): Promise<string> {
  const login = await fetch(`${url}/api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(ADMIN).toString(),
  }).then((r) => r.json());
  if (login.code !== 1) throw new Error(`admin/login: ${JSON.stringify(login)}`);
  const token = login.data.token as string;
  for (let i = 0; i < 40; i++) {
    const page = await fetch(`${url}/api/admin/outbox?recipient=${encodeURIComponent(recipient)}&limit=20`, { headers: { Authorization: token } }).then((r) =>
      r.json(),
    );
    const items = (page.data?.items ?? []) as Array<{ purpose: string; body: string; id: number | string }>;
    const item = items.filter((m) => m.purpose === purpose).sort((a, b) => Number(b.id) - Number(a.id))[0];
    const code = item && /\b\d{6}\b/.exec(item.body)?.[0];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no ${purpose} code in the outbox for ${recipient}`);
}

/** Registers `email` through the API (code from the outbox, agreement given): the new session. */
export async function registerByEmail(url: string, email: string, password = 'pass-1234'): Promise<{ token: string; user: unknown }> {
  const api = apiOf(url);
  await api('POST', 'sms_mail', { email, purpose: 'register' });
  const code = await latestCode(url, email, 'register');
  return api<{ token: string; user: unknown }>('POST', 'user/register', { type: 'email', email, code, password, re_password: password, agreement: 1 });
}

/** Sets the user's fund password (`135790`) through the API: trading, withdrawals and the address book need one (spec §6). */
export async function setFundPassword(url: string, email: string, token: string, password = '135790'): Promise<void> {
  const api = apiOf(url);
  await api('POST', 'sms_mail', { purpose: 'fund_password' }, token);
  await api('POST', 'user/e_pwd', { password, re_password: password, code: await latestCode(url, email, 'fund_password'), channel: 'email' }, token);
}

/** A typed call to the stack's API (form-encoded; throws unless code 1). */
export function apiOf(url: string) {
  return async function api<T>(method: 'GET' | 'POST', path: string, params: Record<string, string | number> = {}, token?: string, tries = 40): Promise<T> {
    const body = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
    const res = await fetch(`${url}/api/${path}${method === 'GET' && body ? `?${body}` : ''}`, {
      method,
      headers: { 'content-type': 'application/x-www-form-urlencoded', lang: 'en', ...(token ? { Authorization: token } : {}) },
      body: method === 'GET' ? undefined : body,
    }).then((r) => r.json());
    // "Catching up" (2106, the lag bound) says nothing happened: a client tries again a little later, as this one does,
    // for up to 20 s (a CI machine running other suites beside this stack kept the projection past the bound for over 2 s).
    if (res.code === 2106 && tries > 1) {
      await new Promise((r) => setTimeout(r, 500));
      return api<T>(method, path, params, token, tries - 1);
    }
    if (res.code !== 1) throw new Error(`${path}: ${JSON.stringify(res)}`);
    return res.data as T;
  };
}

/** Approves, as the operator, everything the `admin/<queue>` review list holds (deposits, identity forms). */
export async function approveReviews(url: string, adminToken: string, queue: 'deposits' | 'real_name'): Promise<void> {
  const api = apiOf(url);
  for (const r of (await api<{ items: Array<{ id: string }> }>('GET', `admin/${queue}`, { status: 'review', limit: 100 }, adminToken)).items)
    await api('POST', `admin/${queue}/${r.id}/approve`, { reason: 'checked' }, adminToken);
}

/** A USDT deposit on TRC20 with a proof image of `shade`, approved by the operator. */
export async function approvedDeposit(url: string, adminToken: string, token: string, amount: string, clientId: string, shade = 200): Promise<void> {
  const proof = await uploadImage(url, token, shade);
  await apiOf(url)('POST', 'wallet/charge_req', { currency_id: 3, chain: 'TRC20', amount, image_id: proof, client_id: clientId }, token);
  await approveReviews(url, adminToken, 'deposits');
}

let pngs = 0;
/** A small PNG of one colour, its first pixel different in every call (a new picture: payment proofs are refused by content when one backs another report). */
export function png(shade: number): Buffer {
  const p = new PNG({ width: 32, height: 24 });
  p.data.fill(shade);
  pngs++;
  // The first pixel counts the pictures, the second the process (test files share a stack).
  p.data[0] = pngs & 255;
  p.data[1] = (pngs >> 8) & 255;
  p.data[2] = (pngs >> 16) & 255;
  p.data[3] = 255;
  p.data[4] = process.pid & 255;
  p.data[5] = (process.pid >> 8) & 255;
  p.data[6] = (process.pid >> 16) & 255;
  p.data[7] = 255;
  return PNG.sync.write(p);
}

/** Uploads a PNG through `POST upload/image` as the user; returns the upload id. */
export async function uploadImage(url: string, token: string, shade: number): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png(shade))], { type: 'image/png' }), 'p.png');
  const res = await fetch(`${url}/api/upload/image`, { method: 'POST', headers: { Authorization: token }, body: form }).then((r) => r.json());
  if (res.code !== 1) throw new Error(`upload: ${JSON.stringify(res)}`);
  return res.data.id;
}
