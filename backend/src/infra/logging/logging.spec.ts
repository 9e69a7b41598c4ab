import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogging, isOrderEntry, NestPinoLogger } from './logging';

/** A log line as JSON. */
type Line = Record<string, unknown>;

/** A server whose every request goes through the logging's pino-http, on a loopback port. */
async function serve(level: string): Promise<{ lines: Line[]; call: (method: string, path: string, headers?: Record<string, string>) => Promise<Record<string, string | string[] | undefined>>; server: Server }> {
  const lines: Line[] = [];
  const logging = createLogging({ logLevel: level, logStream: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  const server = createServer((req, res) => {
    logging.http(req, res);
    res.end('{}');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  const call = (method: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<Record<string, string | string[] | undefined>>((ok, fail) => {
      const r = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        res.resume();
        // The access line is written on `finish`, before the client has the whole answer.
        res.on('end', () => ok(res.headers));
      });
      r.on('error', fail);
      r.end();
    });
  return { lines, call, server };
}

describe('logging', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('order entry is POST/PUT coin/trade and POST coin/batch_trade, whatever the query string, case or trailing slash', () => {
    expect(isOrderEntry({ method: 'POST', url: '/api/coin/trade' })).toBe(true);
    expect(isOrderEntry({ method: 'PUT', url: '/api/coin/trade?x=1' })).toBe(true);
    expect(isOrderEntry({ method: 'POST', url: '/api/coin/batch_trade' })).toBe(true);
    expect(isOrderEntry({ method: 'POST', url: '/API/Coin/Trade/' })).toBe(true);
    expect(isOrderEntry({ method: 'GET', url: '/api/coin/trade' })).toBe(false);
    expect(isOrderEntry({ method: 'POST', url: '/api/coin/trades' })).toBe(false);
  });

  it('at info: every request gets an id (the caller’s when usable), order entry writes no access line, the rest do, with the id and no token', async () => {
    const s = await serve('info');
    servers.push(s.server);
    const given = await s.call('POST', '/api/coin/trade', { 'x-request-id': 'given-id-1', authorization: 'secret-token' });
    expect(given['x-request-id']).toBe('given-id-1');
    const made = await s.call('GET', '/api/user/info', { 'x-request-id': 'not a usable id!', authorization: 'secret-token', cookie: 'sid=secret-cookie', 'x-api-key': 'secret-key' });
    expect(made['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((r) => setImmediate(r));
    expect(s.lines).toHaveLength(1);
    expect(s.lines[0]).toMatchObject({ level: 30, msg: 'request completed', req: { id: made['x-request-id'], method: 'GET', url: '/api/user/info' }, res: { statusCode: 200 } });
    for (const secret of ['secret-token', 'secret-cookie', 'secret-key']) expect(JSON.stringify(s.lines)).not.toContain(secret);
  });

  it('at debug: order entry’s access line too, at debug', async () => {
    const s = await serve('debug');
    servers.push(s.server);
    await s.call('PUT', '/api/coin/trade', { 'x-request-id': 'cancel-7' });
    await new Promise((r) => setImmediate(r));
    expect(s.lines).toEqual([expect.objectContaining({ level: 20, msg: 'request completed', req: expect.objectContaining({ id: 'cancel-7', method: 'PUT' }) })]);
  });

  it("Nest's logger: the context last, objects merged, errors as err, Nest's (message, stack, context) as an error with that stack", () => {
    const lines: Line[] = [];
    const { root } = createLogging({ logLevel: 'info', logStream: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    const nest = new NestPinoLogger(root);
    nest.log('started', 'Boot');
    nest.warn({ market: 3 }, 'slow', 'Engine');
    nest.error(new Error('boom'), 'Relay');
    nest.error('failed', 'Error: failed\n    at somewhere (x.js:1:1)', 'ExceptionsHandler');
    nest.debug('not written', 'Boot');
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, context: 'Boot', msg: 'started' }),
      expect.objectContaining({ level: 40, context: 'Engine', market: 3, msg: 'slow' }),
      expect.objectContaining({ level: 50, context: 'Relay', err: expect.objectContaining({ message: 'boom' }) }),
      expect.objectContaining({ level: 50, context: 'ExceptionsHandler', err: expect.objectContaining({ message: 'failed', stack: 'Error: failed\n    at somewhere (x.js:1:1)' }) }),
    ]);
  });
});
