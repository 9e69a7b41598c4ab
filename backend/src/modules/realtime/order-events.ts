import type { Socket } from 'socket.io';
import { countedOrder, ordersOverflow } from './flow';

/**
 * An `order` event of the main namespace that asks for an ack, as Socket.IO's parser writes it:
 * packet type 2 (EVENT), the ack id's digits, then the JSON array `["order", …]` (sticky: read
 * where `lastIndex` says, after the Engine.IO packet type on the WebSocket path).
 */
const ORDER_EVENT = /2(\d+)\["order",/y;

/** Bytes of answers a connection's WebSocket may hold unwritten before acks go through Engine.IO's buffer again (see `write`). */
const DIRECT_WRITE_BACKLOG = 64 * 1024;

/** What this reaches into of Socket.IO's per-connection `Client`: the listener it gave the engine, and its decoder's state. */
interface ClientInternals {
  ondata(data: unknown): void;
  decoder: { reconstructor?: unknown };
}

/** The `ws` socket under Engine.IO's WebSocket transport, as far as this path uses it. */
interface WsSocket {
  readonly bufferedAmount: number;
  send(data: string): void;
  listeners(event: 'message'): Array<(data: Buffer, isBinary: boolean) => void>;
  off(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
}

/** Engine.IO's per-connection socket, as far as this path reads it. */
interface EngineInternals {
  readyState: string;
  transport: { name: string; socket?: WsSocket };
  writeBuffer: unknown[];
  /** Set while a ping waits for its pong: any packet then refreshes the timeout, which only Engine.IO's own path does. */
  pingTimeoutTimer: unknown;
  write(data: string, options: { compress: boolean }): void;
  on(event: 'data', listener: (data: unknown) => void): void;
  on(event: 'upgrade', listener: (transport: EngineInternals['transport']) => void): void;
  off(event: 'data', listener: (data: unknown) => void): void;
}

/**
 * The connections that already answer their own `order` events, each with its main-namespace
 * socket now: a client has one socket per namespace at a time, and one that leaves the main
 * namespace and joins it again on the same connection gets a new socket.
 */
const answering = new WeakMap<object, { socket: Socket; answer: (request: unknown) => Promise<unknown> }>();

/**
 * Answers a socket's `order` events straight from its connection: the packet is read with one
 * `JSON.parse` and the ack written as Socket.IO's encoder writes it (`3<id>[answer]`), instead of
 * going through Socket.IO's decoder, event dispatch, ack closure and encoder (their per-message
 * work, binary checks and debug calls were ~6 % of the server's main thread under
 * `BENCH_TRANSPORT=ws npm run bench:api`, and that thread is what the Socket.IO order loop queues
 * on: docs/performance.md, forty-second sitting).
 *
 * On the WebSocket transport the order is read from the `ws` socket's message, before Engine.IO
 * decodes it into a packet and emits it through its connection, and the ack written to that socket
 * (`43<id>[answer]`), past Engine.IO's packet objects, write buffer, flush and drain events and its
 * per-send callback (docs/performance.md, ninety-eighth sitting). Engine.IO's order of messages is
 * kept: an ack goes straight to the socket only while Engine.IO's own buffer is empty (everything
 * it was given is already in the socket, ahead of the ack) and the socket holds less than
 * `DIRECT_WRITE_BACKLOG` unwritten; otherwise it joins Engine.IO's buffer, whose length is what
 * `ordersOverflow` bounds for a client that does not read. While a ping waits for its pong, and on
 * the long-polling transport, every message takes Engine.IO's path (which then hands `order`
 * events to the listener below).
 *
 * Only the packets Socket.IO would hand to `socket.on('order', (request, ack) => …)` with an ack
 * take this path: an EVENT of the main namespace with a numeric id, exactly `["order", request]`,
 * on a socket that is connected, with no binary packet being put together. Everything else (other
 * events, an `order` without an id or with more arguments, malformed JSON, a socket that left the
 * namespace) goes to Engine.IO and Socket.IO unchanged, so their own rules (and the closing of the
 * connection on a bad packet) still apply. The ack is written only while the connection is open,
 * as Socket.IO's is. The app adds no Socket.IO middleware (`socket.use`) or catch-all listener,
 * which this path would pass by; an `order` is answered as soon as it is read, where Socket.IO's
 * dispatch would wait a tick (messages of one socket still reach the order channel in the order
 * they were sent).
 */
export function answerOrderEvents(socket: Socket, answer: (request: unknown) => Promise<unknown>): void {
  const conn = socket.conn as unknown as EngineInternals;
  if (socket.nsp.name !== '/') return;
  const known = answering.get(conn);
  if (known) {
    // The namespace joined again on this connection: its listeners below answer for the new socket.
    known.socket = socket;
    known.answer = answer;
    return;
  }
  const current = { socket, answer };
  answering.set(conn, current);
  const client = socket.client as unknown as ClientInternals;

  /** Takes the Socket.IO packet at `start` of `text` if it is an `order` this path answers; false leaves it to the caller. */
  const took = (text: string, start: number, write: (ack: string) => void): boolean => {
    if (!current.socket.connected || client.decoder.reconstructor !== undefined) return false;
    ORDER_EVENT.lastIndex = start;
    const id = ORDER_EVENT.exec(text)?.[1];
    if (id === undefined) return false;
    let event: unknown;
    try {
      event = JSON.parse(text.slice(start + 1 + id.length));
    } catch {
      return false;
    }
    if (!Array.isArray(event) || event.length !== 2) return false;
    // The ack id as Socket.IO's decoder reads it (a number) and its encoder writes it.
    const ack = `3${Number(id)}`;
    if (ordersOverflow(current.socket)) return true;
    countedOrder(current.socket, current.answer(event[1]), (reply) => {
      if (conn.readyState === 'open') write(`${ack}${JSON.stringify([reply])}`);
    });
    return true;
  };

  // Engine.IO's path: the long-polling transport, and what the WebSocket path below leaves to it.
  const toEngine = (packet: string) => conn.write(packet, { compress: true });
  const toSocketIo = client.ondata;
  conn.off('data', toSocketIo);
  conn.on('data', (data: unknown) => {
    if (typeof data !== 'string' || !took(data, 0, toEngine)) toSocketIo(data);
  });

  const direct = (transport: EngineInternals['transport']) => {
    const ws = transport.socket;
    const engineListeners = transport.name === 'websocket' ? ws?.listeners('message') : undefined;
    // Engine.IO's transport has one listener on its socket; anything else is a layout this does not know.
    if (!ws || engineListeners?.length !== 1) return;
    const [toEngineIo] = engineListeners;
    const write = (packet: string) => {
      if (conn.transport === transport && conn.writeBuffer.length === 0 && ws.bufferedAmount < DIRECT_WRITE_BACKLOG) ws.send(`4${packet}`);
      else toEngine(packet);
    };
    ws.off('message', toEngineIo);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      // `4` (an Engine.IO message) then `2` (a Socket.IO event), checked on the bytes before any decoding.
      const candidate =
        !isBinary && data[0] === 0x34 && data[1] === 0x32 && conn.readyState === 'open' && conn.transport === transport && conn.pingTimeoutTimer === null;
      if (!candidate || !took(data.toString(), 1, write)) toEngineIo(data, isBinary);
    });
  };
  direct(conn.transport);
  conn.on('upgrade', direct);
}
