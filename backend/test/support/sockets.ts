import type { AddressInfo } from 'node:net';
import { io, type Socket } from 'socket.io-client';
import type { TestApp } from './test-app';

/**
 * Socket.IO clients on the test app (listening on a loopback port, started on first use): `connect`
 * answers once the handshake with `token` is accepted; `emit` sends an event and answers its
 * acknowledgement (5 s at most); `closeAll` disconnects every client made.
 */
export async function socketClients(t: TestApp): Promise<{
  connect: (token: string) => Promise<Socket>;
  emit: (c: Socket, event: string, body?: unknown) => Promise<Record<string, unknown>>;
  closeAll: () => void;
}> {
  if (!t.app.getHttpServer().listening) await t.app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  const sockets: Socket[] = [];
  const connect = (token: string) =>
    new Promise<Socket>((resolve, reject) => {
      const c = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
      sockets.push(c);
      c.once('connect', () => resolve(c));
      c.once('connect_error', reject);
    });
  const emit = (c: Socket, event: string, body?: unknown) => c.timeout(5000).emitWithAck(event, body) as Promise<Record<string, unknown>>;
  return { connect, emit, closeAll: () => sockets.forEach((c) => c.disconnect()) };
}
