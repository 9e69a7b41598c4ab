import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Sockets with writes held this turn of the event loop; all released by one setImmediate. */
const held = new Set<Duplex>();
let releaseScheduled = false;

function release(): void {
  releaseScheduled = false;
  for (const socket of held) socket.uncork();
  held.clear();
}

/**
 * Everything written to this socket in one turn of the event loop leaves in one system call: the
 * first write of a turn corks the socket, and one setImmediate (after the turn's I/O callbacks)
 * uncorks every socket held. A WebSocket message is a frame of its own, written at once; a batch
 * of results answered together (acks and the order pushes they cause) would otherwise cost one
 * write(2) per frame, here and one wakeup per frame at the peer. The bytes and their order are
 * unchanged; they leave at most one turn later. Nested cork/uncork (ws corks each frame's header
 * and body) counts, so the socket stays corked until the release.
 */
export function coalesceWrites(socket: Duplex): void {
  const write = socket.write;
  socket.write = function (this: Duplex, ...args: Parameters<Duplex['write']>): boolean {
    if (!held.has(socket) && !socket.destroyed) {
      socket.cork();
      held.add(socket);
      if (!releaseScheduled) {
        releaseScheduled = true;
        setImmediate(release);
      }
    }
    return write.apply(this, args);
  } as Duplex['write'];
}

/** Every connection upgraded on this server (Socket.IO's WebSocket transport) coalesces its writes. */
export function coalesceUpgradedWrites(server: Server): void {
  server.on('upgrade', (_req, socket: Duplex) => coalesceWrites(socket));
}
