import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { coalesceUpgradedWrites, coalesceWrites } from './coalesce-writes';

/** A loopback pair: `a` is the server's end (coalesced), `b` the client's, collecting what arrives. */
async function pair(): Promise<{ server: Server; a: Socket; b: Socket; received: Buffer[] }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const accepted = once(server, 'connection');
  const b = connect(port, '127.0.0.1');
  const [a] = (await accepted) as [Socket];
  await once(b, 'connect');
  const received: Buffer[] = [];
  b.on('data', (d: Buffer) => received.push(d));
  return { server, a, b, received };
}

const turn = () => new Promise((ok) => setImmediate(ok));

/** The socket's writes are held (it is corked) until the current run of JavaScript ends. */
async function expectHeldUntilTheRunEnds(socket: Socket): Promise<void> {
  expect(socket.writableCorked).toBe(1);
  await turn();
  expect(socket.writableCorked).toBe(0);
}

/** Waits until the pair's client end has received as many bytes as `expected` holds, then checks them. */
async function expectReceived(x: { b: Socket; received: Buffer[] }, expected: string): Promise<void> {
  while (Buffer.concat(x.received).length < expected.length) await once(x.b, 'data');
  expect(Buffer.concat(x.received).toString()).toBe(expected);
}

describe('coalesceWrites', () => {
  let p: Awaited<ReturnType<typeof pair>>;
  beforeEach(async () => {
    p = await pair();
    coalesceWrites(p.a);
  });
  afterEach(async () => {
    p.a.destroy();
    p.b.destroy();
    await new Promise((ok) => p.server.close(ok));
  });

  it('holds every write of one run of JavaScript and sends them together, in order, in one system call', async () => {
    const writev = jest.spyOn(p.a as unknown as { _writev: (...a: unknown[]) => void }, '_writev');
    const write = jest.spyOn(p.a as unknown as { _write: (...a: unknown[]) => void }, '_write');
    for (let i = 0; i < 50; i++) p.a.write(`frame ${i};`);
    expect(p.a.writableCorked).toBe(1);
    expect(writev).not.toHaveBeenCalled();
    expect(write).not.toHaveBeenCalled();
    await turn();
    expect(p.a.writableCorked).toBe(0);
    expect(writev).toHaveBeenCalledTimes(1);
    expect(write).not.toHaveBeenCalled();
    const expected = Array.from({ length: 50 }, (_, i) => `frame ${i};`).join('');
    await expectReceived(p, expected);
  });

  it('keeps nested corks (a frame corked by its writer) held until the run ends', async () => {
    p.a.cork();
    p.a.write('header');
    p.a.write('body');
    p.a.uncork();
    await expectHeldUntilTheRunEnds(p.a);
    await expectReceived(p, 'headerbody');
  });

  it('sends a write made in the callback of a released one in the same turn (engine.io waits for that callback)', async () => {
    const writev = jest.spyOn(p.a as unknown as { _writev: (...a: unknown[]) => void }, '_writev');
    p.a.write('first;', () => {
      p.a.write('second;');
      p.a.write('third;');
    });
    p.a.write('with-first;');
    await turn();
    expect(p.a.writableCorked).toBe(0);
    expect(writev).toHaveBeenCalledTimes(2);
    const expected = 'first;with-first;second;third;';
    await expectReceived(p, expected);
  });

  it('sends what was written before a destroy in the same run (the 400 of a refused upgrade)', async () => {
    const closed = once(p.b, 'close');
    p.a.write('HTTP/1.1 400 Bad Request\r\n\r\n');
    p.a.destroy();
    await closed;
    expect(Buffer.concat(p.received).toString()).toBe('HTTP/1.1 400 Bad Request\r\n\r\n');
  });

  it('releases every socket held in a run, one of them destroyed meanwhile, and holds them again on later turns', async () => {
    const q = await pair();
    coalesceWrites(q.a);
    try {
      const writev = jest.spyOn(q.a as unknown as { _writev: (...a: unknown[]) => void }, '_writev');
      for (let t = 0; t < 3; t++) {
        p.a.write(`p${t};`);
        q.a.write(`q${t};`);
        q.a.write(`q${t}';`);
        expect([p.a.writableCorked, q.a.writableCorked]).toEqual([1, 1]);
        await turn();
        expect([p.a.writableCorked, q.a.writableCorked]).toEqual([0, 0]);
      }
      expect(writev).toHaveBeenCalledTimes(3);
      const expected = "q0;q0';q1;q1';q2;q2';";
      await expectReceived(q, expected);
      q.a.write('last');
      p.a.write('p-last');
      q.a.destroy();
      await expectHeldUntilTheRunEnds(p.a);
      await expectReceived(p, 'p0;p1;p2;p-last');
    } finally {
      q.a.destroy();
      q.b.destroy();
      await new Promise((ok) => q.server.close(ok));
    }
  });

  it('starts again on the next turn, and a socket destroyed while held is released without error', async () => {
    p.a.write('one');
    await turn();
    p.a.write('two');
    expect(p.a.writableCorked).toBe(1);
    await turn();
    await expectReceived(p, 'onetwo');
    p.a.write('three');
    p.a.destroy();
    await turn();
    expect(p.a.destroyed).toBe(true);
  });
});

describe('coalesceUpgradedWrites', () => {
  it('closes an upgrade that nothing else on the server handles', async () => {
    const server = createHttpServer();
    coalesceUpgradedWrites(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = connect((server.address() as { port: number }).port, '127.0.0.1');
    client.write('GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    await once(client, 'close');
    await new Promise((ok) => server.close(ok));
  });
});
