import type { Server } from 'node:http';
import { connect } from 'node:net';
import { loadConfig } from '../src/infra/config/config';
import { withEnv } from './support/env';
import { startTestApp, TestApp } from './support/test-app';

/**
 * HTTP keep-alive (HTTP_KEEP_ALIVE_MS): an idle connection stays open for the configured time, then
 * the server closes it. Node's default (5 s) made clients' pools reopen connections in every burst.
 */
describe('HTTP keep-alive (real app on PostgreSQL + Redis)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false, httpKeepAliveMs: 1500 });
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => t?.close());

  /** One raw connection: `ask` sends a GET and resolves with the answer's head; `closed` resolves when the server closes it. */
  function rawConnection(): { ask: (path: string) => Promise<string>; closed: Promise<number> } {
    const socket = connect(port, '127.0.0.1');
    let buffered = '';
    let waiting: ((head: string) => void) | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      // Each answer is small: its head and body arrive together; the head ends at the blank line.
      const end = buffered.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(buffered.slice(0, end));
      if (end < 0 || !length || buffered.length < end + 4 + Number(length[1])) return;
      const head = buffered.slice(0, end);
      buffered = buffered.slice(end + 4 + Number(length[1]));
      waiting?.(head);
    });
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
    const ask = (path: string) =>
      new Promise<string>((resolve) => {
        waiting = resolve;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      });
    return { ask, closed };
  }

  it('keeps an idle connection for HTTP_KEEP_ALIVE_MS, says so in Keep-Alive, then closes it', async () => {
    const c = rawConnection();
    const first = await c.ask('/api/health');
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(first).toMatch(/\r\nKeep-Alive: timeout=1(\r\n|$)/i);
    // Idle for less than the timeout: the same connection answers again.
    await new Promise((r) => setTimeout(r, 1000));
    const second = await c.ask('/api/health');
    expect(second).toMatch(/^HTTP\/1\.1 200/);
    const answered = performance.now();
    // Idle past it: the server closes the connection, not before.
    const closedAt = await c.closed;
    expect(closedAt - answered).toBeGreaterThanOrEqual(1400);
    expect(closedAt - answered).toBeLessThan(4000);
  });

  it('defaults to 65 s, and a value out of 1 s–10 min stops the start', () => {
    expect(withEnv('HTTP_KEEP_ALIVE_MS', undefined, () => loadConfig().httpKeepAliveMs)).toBe(65_000);
    for (const bad of ['500', '600001', 'soon']) expect(() => withEnv('HTTP_KEEP_ALIVE_MS', bad, () => loadConfig())).toThrow('HTTP_KEEP_ALIVE_MS');
  });
});
