import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { parse as parseQuery } from 'node:querystring';
import { WebSocket, WebSocketServer } from 'ws';
import { OrderChannel } from './order-channel';

/** Where the plain WebSocket order endpoint answers upgrades. */
export const ORDER_SOCKET_PATH = '/api/coin/ws';

/** The largest message taken (an order request is ~200 bytes); a larger one closes the connection (1009). */
export const ORDER_SOCKET_MAX_BYTES = 16 * 1024;

/**
 * Requests a connection may have open (taken, answer not yet handed to the kernel) before the
 * server stops reading it; it reads again at half. A client that sends faster than it is answered,
 * or does not read its answers, is slowed by TCP's own flow control instead of filling memory.
 */
export const ORDER_SOCKET_MAX_OPEN = 256;

/** A connection that has not answered a ping within this long is closed. */
export const ORDER_SOCKET_PING_MS = 30_000;

/**
 * The order channel as a plain WebSocket (RFC 6455) endpoint, for programs that trade (bots,
 * market makers) and do not want Socket.IO's protocol: each text message is one request
 * `{id, method: 'place' | 'cancel', params}` and gets one text message back, the same
 * `{id, type, code, message, data}` the Socket.IO channel acks with — OrderChannel answers both
 * (the token checked on every message, the same validation, codes and languages). Answers can
 * come back in another order than the requests: match them by `id`.
 *
 * The token is the upgrade request's `Authorization` header (a token in the URL would end up in
 * proxies' logs); the language is its `lang` header or `?lang=`. No pushes: order updates and
 * market data are on the Socket.IO connection.
 */
@Injectable()
export class OrderSocket implements OnApplicationShutdown {
  private detach?: () => void;

  constructor(private readonly channel: OrderChannel) {}

  /** Answers upgrades to ORDER_SOCKET_PATH on `server` (other paths are left to their listeners). */
  attach(server: Server): void {
    this.detach = attachOrderSocket(server, this.channel);
  }

  /** Open connections are closed with the app. */
  onApplicationShutdown(): void {
    this.detach?.();
  }
}

function attachOrderSocket(server: Server, channel: OrderChannel): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: ORDER_SOCKET_MAX_BYTES, perMessageDeflate: false });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== ORDER_SOCKET_PATH) return;
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req));
  };
  server.on('upgrade', onUpgrade);

  const serve = (ws: WebSocket, req: IncomingMessage) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const handshake = { auth: {}, headers: req.headers, query: q < 0 ? {} : { ...parseQuery(url.slice(q + 1)) } };
    let alive = true;
    let open = 0;
    let paused = false;
    const done = () => {
      open--;
      if (paused && open <= ORDER_SOCKET_MAX_OPEN / 2) {
        paused = false;
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
      void channel.answer(handshake, request).then((ack) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(ack), done);
        else done();
      });
    });
    const ping = setInterval(() => {
      if (!alive) return void ws.terminate();
      alive = false;
      ws.ping();
    }, ORDER_SOCKET_PING_MS);
    ping.unref();
    ws.on('close', () => clearInterval(ping));
    ws.on('error', () => ws.terminate());
  };

  return () => {
    server.off('upgrade', onUpgrade);
    for (const ws of wss.clients) ws.terminate();
    wss.close();
  };
}
