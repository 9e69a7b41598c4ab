import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { parse as parseQuery } from 'node:querystring';
import { WebSocket, WebSocketServer } from 'ws';
import { splitUrl } from '../../infra/http/url';
import { Handshake, OrderChannel } from './order-channel';

/** Where the plain WebSocket order endpoint answers upgrades. */
export const ORDER_SOCKET_PATH = '/api/coin/ws';

/** The largest message taken (an order request is ~200 bytes); a larger one closes the connection (1009). */
export const ORDER_SOCKET_MAX_BYTES = 16 * 1024;

/**
 * Requests a connection may have open (taken, and their answers not yet handed to the kernel)
 * before the server stops reading it; it reads again at half. What the socket had already read
 * is still taken (up to one read, ~64 KiB), so the bound is approximate. A client that sends
 * faster than it is answered, or stops reading its answers (once its TCP window is full), is
 * slowed by TCP's own flow control instead of filling the server's memory.
 */
export const ORDER_SOCKET_MAX_OPEN = 256;

/** A connection that has not answered a ping within this long is closed (not while the server is not reading it). */
export const ORDER_SOCKET_PING_MS = 30_000;

/** At shutdown, connections get a close frame (1001) and this long to answer it before they are cut. */
const CLOSE_GRACE_MS = 1000;

/**
 * The order channel as a plain WebSocket (RFC 6455) endpoint, for programs that trade (bots,
 * market makers) and do not want Socket.IO's protocol: each text message is one request
 * `{id, method: 'place' | 'cancel', params}` and gets one text message back, the same
 * `{id, type, code, message, data}` the Socket.IO channel acks with — OrderChannel answers both
 * (the token checked on every message, the same validation, codes and languages). Answers can
 * come back in another order than the requests: match them by `id`.
 *
 * The token is the upgrade request's `Authorization` header (a token in the URL would end up in
 * proxies' logs; a browser cannot send that header, so another site's page cannot use a visitor's
 * session): an upgrade without a valid one is refused with HTTP 401. The language is the
 * upgrade's `lang` header or `?lang=`. No pushes: order updates and market data are on the
 * Socket.IO connection.
 */
@Injectable()
export class OrderSocket implements BeforeApplicationShutdown {
  private endpoint?: { close(): Promise<void> };

  constructor(private readonly channel: OrderChannel) {}

  /** Answers upgrades to ORDER_SOCKET_PATH on `server` (other paths are left to their listeners). */
  attach(server: Server): void {
    this.endpoint = orderEndpoint(server, this.channel);
  }

  /** Before the HTTP server closes (it would wait for these connections for ever): new upgrades get 503, open connections a close frame. */
  beforeApplicationShutdown(): Promise<void> {
    return this.endpoint?.close() ?? Promise.resolve();
  }
}

function orderEndpoint(server: Server, channel: OrderChannel): { close(): Promise<void> } {
  const logger = new Logger('OrderSocket');
  const wss = new WebSocketServer({ noServer: true, maxPayload: ORDER_SOCKET_MAX_BYTES, perMessageDeflate: false });
  let closing = false;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { path, query } = splitUrl(req.url);
    if (path !== ORDER_SOCKET_PATH) return;
    if (closing) return refuse(socket, 503, 'Service Unavailable');
    const handshake: Handshake = { auth: {}, headers: req.headers, query: { ...parseQuery(query) } };
    // The token first: a connection without one costs nothing more (and each of its messages no lookup).
    channel.authenticate(handshake).then(
      (auth) => {
        if (socket.destroyed) return;
        if (!auth) return refuse(socket, 401, 'Unauthorized');
        if (closing) return refuse(socket, 503, 'Service Unavailable');
        wss.handleUpgrade(req, socket, head, (ws) => serve(ws, handshake));
      },
      (err: unknown) => {
        logger.error({ err }, 'order socket: token check failed');
        refuse(socket, 503, 'Service Unavailable');
      },
    );
  };
  server.on('upgrade', onUpgrade);

  const serve = (ws: WebSocket, handshake: Handshake) => {
    let alive = true;
    let open = 0;
    let paused = false;
    const done = () => {
      open--;
      if (paused && open <= ORDER_SOCKET_MAX_OPEN / 2) {
        paused = false;
        alive = true;
        ws.resume();
      }
    };
    ws.on('pong', () => (alive = true));
    ws.on('message', (data, isBinary) => {
      let request: unknown;
      try {
        request = isBinary ? undefined : JSON.parse(data.toString());
      } catch {
        request = undefined;
      }
      if (++open >= ORDER_SOCKET_MAX_OPEN && !paused) {
        paused = true;
        ws.pause();
      }
      // Not an object (or not JSON): OrderChannel answers it with code 1000 and id null.
      channel
        .answer(handshake, request)
        .then((ack) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(ack), done);
          else done();
        })
        .catch((err: unknown) => {
          logger.error({ err }, 'order socket: answer failed');
          done();
        });
    });
    const ping = setInterval(() => {
      // A connection we are not reading cannot have its pong read either.
      if (paused) return;
      if (!alive) return void ws.terminate();
      alive = false;
      ws.ping();
    }, ORDER_SOCKET_PING_MS);
    ping.unref();
    ws.on('close', () => clearInterval(ping));
    // A protocol error (e.g. a message over the cap): ws sends the close frame and closes the socket itself.
    ws.on('error', () => undefined);
  };

  return {
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        const cut = setTimeout(() => {
          for (const ws of wss.clients) ws.terminate();
        }, CLOSE_GRACE_MS);
        cut.unref();
        wss.close(() => {
          clearTimeout(cut);
          server.off('upgrade', onUpgrade);
          resolve();
        });
        for (const ws of wss.clients) ws.close(1001, 'server shutting down');
      }),
  };
}

/** Answers an upgrade with an HTTP status instead of switching protocols, and closes the connection. */
function refuse(socket: Duplex, status: number, reason: string): void {
  if (socket.destroyed) return;
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\n\r\n${reason}`);
}
