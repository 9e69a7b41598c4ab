import { createServer, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, Socket } from 'socket.io';
import { io as ioClient } from 'socket.io-client';
import { Encoder, PacketType } from 'socket.io-parser';
import WebSocket from 'ws';
import { MAX_ORDERS_IN_FLIGHT, MAX_UNREAD_ORDER_ANSWERS } from './flow';
import { answerOrderEvents } from './order-events';

/** Records in `into` every message the server sends on the socket's connection through Engine.IO's own write path (`sendPacket`). */
function recordEngineIoMessages(socket: Socket, into: string[]): void {
  const conn = socket.conn as unknown as { sendPacket(type: string, data?: unknown, ...rest: unknown[]): void };
  const sendPacket = conn.sendPacket.bind(conn);
  conn.sendPacket = (type, data, ...rest) => {
    if (type === 'message') into.push(String(data));
    sendPacket(type, data, ...rest);
  };
}

/** The answer the test server gives an order with this `id`. */
const placed = (id: unknown) => ({ id, type: 'ok', code: 1, message: 'Order placed', data: { price: '1.5', note: 'ü "quoted"' } });

/**
 * The `order` events answered from the connection (on the WebSocket transport, from the `ws` socket
 * itself, past Engine.IO): the same bytes Socket.IO's encoder would send, in Engine.IO's order, and
 * every packet this path does not take left to Engine.IO and Socket.IO as before. A real Socket.IO
 * server, and a client speaking its wire format over `ws` (as the k6 script and bench:api's
 * generator do) or Socket.IO's own client (long-polling).
 */
describe('answerOrderEvents', () => {
  let http: HttpServer;
  let io: Server;
  let url: string;
  /** What the direct path was asked, and what reached Socket.IO's own `order` listener (its arguments' count). */
  const direct: unknown[] = [];
  const viaSocketIo: number[] = [];
  /** The messages the server sent through Engine.IO's own write path (`sendPacket`), of every connection. */
  const viaEngineIo: string[] = [];
  /** The server's side of the newest connection. */
  let serverSide: Socket;
  const open: WebSocket[] = [];

  beforeAll(async () => {
    http = createServer();
    io = new Server(http);
    io.on('connection', (socket) => {
      serverSide = socket;
      recordEngineIoMessages(socket, viaEngineIo);
      socket.on('order', (...args: unknown[]) => {
        viaSocketIo.push(args.length);
        const ack = args[args.length - 1];
        if (typeof ack === 'function') (ack as (a: unknown) => void)({ via: 'socket.io', args: args.length });
      });
      socket.on('echo', (value: unknown, ack: (a: unknown) => void) => ack({ echoed: value }));
      socket.on('leave-namespace', () => socket.disconnect());
      answerOrderEvents(socket, async (request) => {
        direct.push(request);
        // An answer that takes its time (the sequencer busy): it stays open.
        const { hold, pushes, corked, big } = (request ?? {}) as { hold?: boolean; pushes?: number; corked?: boolean; big?: boolean };
        if (hold) await new Promise(() => undefined);
        // Held in the TCP socket (corked), Engine.IO's first write does not complete, so it keeps the
        // packets after it in its own buffer until it does: the answer must queue behind them.
        if (corked) {
          const tcp = (socket.conn as unknown as { transport: { socket: { _socket: { cork(): void; uncork(): void } } } }).transport.socket._socket;
          tcp.cork();
          setTimeout(() => tcp.uncork(), 20);
        }
        // Pushes written before the answer (as a fill's `orders` push can be): they reach the client first.
        for (let k = 0; k < (pushes ?? 0); k++) socket.emit('push', k);
        const answer = placed((request as { id?: unknown })?.id ?? null);
        return big ? { ...answer, data: { filler: 'x'.repeat(16_384) } } : answer;
      });
    });
    await new Promise<void>((ok) => http.listen(0, '127.0.0.1', ok));
    url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/socket.io/?EIO=4&transport=websocket`;
  });
  afterAll(async () => {
    for (const ws of open) ws.terminate();
    await new Promise((ok) => io.close(ok));
  });
  beforeEach(() => {
    direct.length = 0;
    viaSocketIo.length = 0;
    viaEngineIo.length = 0;
  });

  /**
   * A connected client: `next()` is the next message that is not a ping (every message, pings too,
   * with `answerPings` false: they are then left unanswered), `closed` settles when the server closes it.
   */
  async function connect(at = url, answerPings = true) {
    const ws = new WebSocket(at);
    open.push(ws);
    const inbox: string[] = [];
    const waiting: Array<(m: string) => void> = [];
    ws.on('message', (data) => {
      const text = data.toString();
      if (text === '2' && answerPings) return void ws.send('3');
      const w = waiting.shift();
      if (w) w(text);
      else inbox.push(text);
    });
    const closed = new Promise<void>((ok) => ws.once('close', () => ok()));
    const next = () => new Promise<string>((ok) => (inbox.length ? ok(inbox.shift()!) : waiting.push(ok)));
    await new Promise((ok, fail) => ws.once('open', ok).once('error', fail));
    expect(await next()).toMatch(/^0\{/);
    ws.send('40');
    expect(await next()).toMatch(/^40\{"sid":/);
    return { ws, next, closed, send: (packet: string) => ws.send(packet) };
  }

  /** The text Socket.IO's own encoder makes of an ack on the main namespace. */
  const socketIoAck = (id: number, answer: unknown) => new Encoder().encode({ type: PacketType.ACK, nsp: '/', id, data: [answer] })[0];

  it('answers `42<id>["order",request]` itself, with the bytes Socket.IO would send', async () => {
    const c = await connect();
    const request = { id: 'p-1', method: 'place', params: { symbol: 'BTC/USDT' } };
    c.send(`4217["order",${JSON.stringify(request)}]`);
    const reply = await c.next();
    const answer = placed('p-1');
    expect(reply).toBe(`4${socketIoAck(17, answer)}`);
    expect(direct).toEqual([request]);
    expect(viaSocketIo).toEqual([]);
    // The ack id as Socket.IO reads it: a number (leading zeros dropped).
    c.send('42007["order",{"id":2}]');
    expect(await c.next()).toBe(`4${socketIoAck(7, { ...answer, id: 2 })}`);
  });

  it('leaves every other packet to Socket.IO: other events, an order without an ack id or with more arguments', async () => {
    const c = await connect();
    c.send('421["echo",{"a":1}]');
    expect(await c.next()).toBe(`4${socketIoAck(1, { echoed: { a: 1 } })}`);
    c.send('42["order",{"id":3}]');
    c.send('422["order",{"id":4},"extra"]');
    expect(await c.next()).toBe(`4${socketIoAck(2, { via: 'socket.io', args: 3 })}`);
    expect(viaSocketIo).toEqual([1, 3]);
    expect(direct).toEqual([]);
  });

  it('a socket that left the namespace is not answered: Socket.IO closes the connection, as it did', async () => {
    const c = await connect();
    c.send('42["leave-namespace"]');
    expect(await c.next()).toBe('41');
    c.send('429["order",{"id":5}]');
    await c.closed;
    expect(direct).toEqual([]);
  });

  it('a socket that joins the namespace again on the same connection is answered directly, as its first was', async () => {
    const c = await connect();
    c.send('42["leave-namespace"]');
    expect(await c.next()).toBe('41');
    c.send('40');
    expect(await c.next()).toMatch(/^40\{"sid":/);
    c.send('4211["order",{"id":6}]');
    expect(await c.next()).toBe(`4${socketIoAck(11, placed(6))}`);
    expect(direct).toEqual([{ id: 6 }]);
    expect(viaSocketIo).toEqual([]);
  });

  it('malformed JSON goes to Socket.IO, which closes the connection', async () => {
    const c = await connect();
    c.send('429["order",{"id":');
    await c.closed;
    expect(direct).toEqual([]);
    expect(viaSocketIo).toEqual([]);
  });

  // Regression: the lane had no bound, so a client sending orders faster than they were answered, or not reading
  // its answers, grew the server's buffers without end (the plain WebSocket endpoint stops reading such a one).
  it(`a connection with ${MAX_ORDERS_IN_FLIGHT} orders still open is closed by the next, which is not taken`, async () => {
    const c = await connect();
    for (let i = 0; i < MAX_ORDERS_IN_FLIGHT; i++) c.send(`42${i}["order",{"id":${i},"hold":true}]`);
    c.send(`42${MAX_ORDERS_IN_FLIGHT}["order",{"id":"one too many"}]`);
    await c.closed;
    expect(direct).toHaveLength(MAX_ORDERS_IN_FLIGHT);
    expect(direct).not.toContainEqual({ id: 'one too many' });
  });

  it('on the WebSocket transport the ack is written to the socket itself, past Engine.IO; other answers still go through it', async () => {
    const c = await connect();
    viaEngineIo.length = 0;
    c.send('425["order",{"id":8}]');
    expect(await c.next()).toBe(`4${socketIoAck(5, placed(8))}`);
    expect(viaEngineIo).toEqual([]);
    c.send('426["echo",1]');
    expect(await c.next()).toBe(`4${socketIoAck(6, { echoed: 1 })}`);
    expect(viaEngineIo).toEqual([socketIoAck(6, { echoed: 1 })]);
  });

  it.each([
    ['written by Engine.IO before the answer', false, 0],
    ['while Engine.IO still holds some of them', true, 1],
  ])('keeps the order of messages: pushes sent before an answer arrive before it (%s)', async (_when, corked, throughEngineIo) => {
    const c = await connect();
    viaEngineIo.length = 0;
    c.send(`427["order",{"id":9,"pushes":3,"corked":${corked}}]`);
    const got = [];
    for (let k = 0; k < 4; k++) got.push(await c.next());
    expect(got).toEqual(['42["push",0]', '42["push",1]', '42["push",2]', `4${socketIoAck(7, placed(9))}`]);
    expect(viaEngineIo.filter((m) => m.startsWith('3'))).toHaveLength(throughEngineIo);
  });

  // A client that does not read its answers: they may not pile up in the socket without bound, past the
  // count `ordersOverflow` keeps of Engine.IO's buffer (acks join that buffer once the socket holds a backlog).
  it('a connection that does not read its answers is closed, however fast they are written', async () => {
    const c = await connect();
    viaEngineIo.length = 0;
    const gone = new Promise<void>((ok) => serverSide.once('disconnect', () => ok()));
    let closed = false;
    void gone.then(() => (closed = true));
    (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    let sent = 0;
    while (!closed && sent < 5_000) {
      for (let k = 0; k < 100; k++, sent++) c.send(`42${sent}["order",{"id":${sent},"big":true}]`);
      await new Promise((ok) => setTimeout(ok, 2));
    }
    expect(closed).toBe(true);
    // Written straight to the socket until it held a backlog, then through Engine.IO's buffer, whose length closed the connection.
    const throughEngineIo = viaEngineIo.filter((m) => m.startsWith('3')).length;
    expect(direct.length - throughEngineIo).toBeGreaterThan(0);
    expect(throughEngineIo).toBeGreaterThan(MAX_UNREAD_ORDER_ANSWERS);
    c.ws.terminate();
  });

  it('while a ping waits for its pong, an order goes through Engine.IO, which counts it as a sign of life', async () => {
    const server = createServer();
    const pinging = new Server(server, { pingInterval: 300, pingTimeout: 2_000 });
    const sentThroughEngineIo: string[] = [];
    let conn: { hasRefreshedPingTimeout?: boolean } | undefined;
    pinging.on('connection', (socket) => {
      conn = socket.conn as unknown as typeof conn;
      recordEngineIoMessages(socket, sentThroughEngineIo);
      answerOrderEvents(socket, async (request) => ({ id: (request as { id?: unknown }).id, type: 'ok', code: 1, message: 'Order placed' }));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const c = await connect(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/socket.io/?EIO=4&transport=websocket`, false);
    try {
      // The ping arrives and is not answered: Engine.IO now waits for the pong.
      expect(await c.next()).toBe('2');
      c.send('4212["order",{"id":"during the ping"}]');
      expect(await c.next()).toBe('4312[{"id":"during the ping","type":"ok","code":1,"message":"Order placed"}]');
      expect(sentThroughEngineIo).toEqual(['312[{"id":"during the ping","type":"ok","code":1,"message":"Order placed"}]']);
      expect(conn?.hasRefreshedPingTimeout).toBe(true);
    } finally {
      c.ws.terminate();
      await new Promise((ok) => pinging.close(ok));
    }
  });

  it.each([
    ['long-polling', 1, ['polling']],
    ['long-polling upgraded to WebSocket', 0, ['polling', 'websocket']],
  ])('a client on %s is answered too (its answers through Engine.IO: %d)', async (_name, throughEngineIo, transports) => {
    const client = ioClient(url.replace(/^ws/, 'http').replace(/\/socket\.io\/.*$/, ''), { transports, reconnection: false });
    try {
      await new Promise<void>((ok, fail) => client.once('connect', ok).once('connect_error', fail));
      if (transports.includes('websocket') && client.io.engine.transport.name !== 'websocket') await new Promise((ok) => client.io.engine.once('upgrade', ok));
      viaEngineIo.length = 0;
      const answer = await client.timeout(5_000).emitWithAck('order', { id: 'polled' });
      expect(answer).toEqual(placed('polled'));
      expect(direct).toEqual([{ id: 'polled' }]);
      expect(viaSocketIo).toEqual([]);
      expect(viaEngineIo).toHaveLength(throughEngineIo);
    } finally {
      client.close();
    }
  });
});
