import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * The BUILT server (`backend/dist/main.js`, `npm run build -w backend`) as a real child process:
 * started with its own environment, its output captured, stopped cleanly or killed outright.
 * For the tests that need a process boundary (crash tests: a SIGKILL, then a restart).
 */
export const ROOT = join(__dirname, '..', '..', '..');
export const MAIN = join(ROOT, 'backend', 'dist', 'main.js');

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** http://127.0.0.1:PORT/api */
  base: string;
  /** Everything it wrote to stdout and stderr so far. */
  output: () => string;
  /** Resolves when the process has ended (exit code or signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A port free right now, below the kernel's ephemeral range (32768–60999): a port taken from that
 * range (`listen(0)`) can be given to any outgoing loopback connection before the server binds it,
 * which CI met as EADDRINUSE on a restarted server in crash.spec.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.unref();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export function spawnServer(port: number, env: Record<string, string>): ServerProcess {
  if (!existsSync(MAIN)) throw new Error('backend/dist/main.js is missing: run `npm run build -w backend` first');
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, port, base: `http://127.0.0.1:${port}/api`, output: () => out, exited };
}

/** Polls settings/get until the server answers with code 1 (or fails with its output). */
export async function waitUntilUp(s: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let ended = false;
  void s.exited.then(() => (ended = true));
  while (Date.now() < until && !ended) {
    const r = await call(s.base, 'POST', 'settings/get', {}).catch(() => undefined);
    if (r?.code === 1) return;
    await sleep(200);
  }
  throw new Error(`the server did not come up on ${s.port} (${ended ? 'it exited' : 'timeout'}):\n${s.output().slice(-4000)}`);
}

/** SIGTERM, then SIGKILL if it is still running after `graceMs`. Safe to call on an ended process. */
export async function stopServer(s: ServerProcess | undefined, graceMs = 10_000): Promise<void> {
  if (!s || s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), graceMs);
  await s.exited;
  clearTimeout(timer);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the envelope's data differs per endpoint
export type Envelope = { type: string; code: number; message: string; data: any };

/** One API call, form-encoded like the app's clients; rejects on a network error or timeout. */
export async function call(
  base: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  form: Record<string, string | number> = {},
  token?: string,
  timeoutMs = 30_000,
): Promise<Envelope> {
  const body = new URLSearchParams(Object.entries(form).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const url = method === 'GET' && body ? `${base}/${path}?${body}` : `${base}/${path}`;
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/x-www-form-urlencoded', lang: 'en', ...(token ? { Authorization: token } : {}) },
    body: method === 'GET' ? undefined : body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return (await res.json()) as Envelope;
}
