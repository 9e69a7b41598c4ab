import type { Socket } from 'socket.io';
import { countedOrder, ordersOverflow } from './flow';

/**
 * An `order` event of the main namespace that asks for an ack, as Socket.IO's parser writes it:
 * packet type 2 (EVENT), the ack id's digits, then the JSON array `["order", …]`.
 */
const ORDER_EVENT = /^2(\d+)\["order",/;

/** What this reaches into of Socket.IO's per-connection `Client`: the listener it gave the engine, and its decoder's state. */
interface ClientInternals {
  ondata(data: unknown): void;
  decoder: { reconstructor?: unknown };
}

/**
 * The connections that already answer their own `order` events, each with its main-namespace
 * socket now: a client has one socket per namespace at a time, and one that leaves the main
 * namespace and joins it again on the same connection gets a new socket.
 */
const answering = new WeakMap<object, { socket: Socket; answer: (request: unknown) => Promise<unknown> }>();

/**
 * Answers a socket's `order` events straight from its Engine.IO connection: the packet is read
 * with one `JSON.parse` and the ack written as Socket.IO's encoder writes it (`3<id>[answer]`),
 * instead of going through Socket.IO's decoder, event dispatch, ack closure and encoder (their
 * per-message work, binary checks and debug calls were ~6 % of the server's main thread under
 * `BENCH_TRANSPORT=ws npm run bench:api`, and that thread is what the Socket.IO order loop
 * queues on: docs/performance.md, forty-second sitting).
 *
 * Only the packets Socket.IO would hand to `socket.on('order', (request, ack) => …)` with an ack
 * take this path: an EVENT of the main namespace with a numeric id, exactly `["order", request]`,
 * on a socket that is connected, with no binary packet being put together. Everything else (other
 * events, an `order` without an id or with more arguments, malformed JSON, a socket that left the
 * namespace) goes to Socket.IO unchanged, so its own rules (and its closing of the connection on
 * a bad packet) still apply. The ack is written only while the connection is open, as Socket.IO's
 * is. The app adds no Socket.IO middleware (`socket.use`) or catch-all listener, which this path
 * would pass by; an `order` is answered as soon as it is read, where Socket.IO's dispatch would
 * wait a tick (messages of one socket still reach the order channel in the order they were sent).
 */
export function answerOrderEvents(socket: Socket, answer: (request: unknown) => Promise<unknown>): void {
  const conn = socket.conn;
  if (socket.nsp.name !== '/') return;
  const known = answering.get(conn);
  if (known) {
    // The namespace joined again on this connection: its listener below answers for the new socket.
    known.socket = socket;
    known.answer = answer;
    return;
  }
  const current = { socket, answer };
  answering.set(conn, current);
  const client = socket.client as unknown as ClientInternals;
  const toSocketIo = client.ondata;
  conn.off('data', toSocketIo);
  conn.on('data', (data: unknown) => {
    if (typeof data === 'string' && current.socket.connected && client.decoder.reconstructor === undefined) {
      const id = ORDER_EVENT.exec(data)?.[1];
      if (id !== undefined) {
        let event: unknown;
        try {
          event = JSON.parse(data.slice(1 + id.length));
        } catch {
          return toSocketIo(data);
        }
        if (Array.isArray(event) && event.length === 2) {
          // The ack id as Socket.IO's decoder reads it (a number) and its encoder writes it.
          const ack = `3${Number(id)}`;
          if (ordersOverflow(current.socket)) return;
          countedOrder(current.socket, current.answer(event[1]), (reply) => {
            if (conn.readyState === 'open') conn.write(`${ack}${JSON.stringify([reply])}`, { compress: true });
          });
          return;
        }
      }
    }
    toSocketIo(data);
  });
}
