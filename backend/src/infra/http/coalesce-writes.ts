import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The release of each socket with writes held since the current JavaScript run began, all called by
 * one process.nextTick. Two arrays, reused and swapped at each release: no per-turn allocation (a
 * `Set` cleared every turn grew a new table each time, and the one live at a scavenge was promoted:
 * ~9 % of what the main thread promoted under `BENCH_TRANSPORT=ws npm run bench:api`).
 */
let held: ((() => void) | undefined)[] = [];
let heldCount = 0;
let spare: ((() => void) | undefined)[] = [];
let releaseScheduled = false;

function release(): void {
  releaseScheduled = false;
  // Swapped first: a socket written again while it is released is held (and released) anew.
  const due = held;
  const n = heldCount;
  held = spare;
  heldCount = 0;
  spare = due;
  for (let i = 0; i < n; i++) {
    const releaseOne = due[i]!;
    due[i] = undefined;
    releaseOne();
  }
}

/**
 * Everything written to this socket in one run of JavaScript leaves in one system call: the first
 * write corks the socket, and one process.nextTick (when the run that wrote ends, before any I/O)
 * uncorks every socket held. A WebSocket message is a frame of its own, written at once; a batch of
 * results answered together (the acks and the order pushes they cause) would otherwise cost one
 * write(2) per frame, here and one wakeup per frame at the peer. The bytes and their order are
 * unchanged and nothing waits for a later turn of the event loop: engine.io, which holds a socket's
 * next packets until its last write's callback, gets that callback and sends them in the same turn.
 * Nested cork/uncork (ws corks each frame's header and body) counts, so the socket stays corked
 * until the release. What was written before a destroy in the same run still goes (engine.io
 * answers a refused upgrade with a 400 and destroys the socket at once).
 */
export function coalesceWrites(socket: Duplex): void {
  let holding = false;
  const releaseOne = (): void => {
    if (!holding) return;
    holding = false;
    socket.uncork();
  };
  const write = socket.write;
  socket.write = function (this: Duplex, ...args: Parameters<Duplex['write']>): boolean {
    if (!holding && !socket.destroyed) {
      socket.cork();
      holding = true;
      held[heldCount++] = releaseOne;
      if (!releaseScheduled) {
        releaseScheduled = true;
        process.nextTick(release);
      }
    }
    return write.apply(this, args);
  } as Duplex['write'];
  const destroy = socket.destroy;
  socket.destroy = function (this: Duplex, ...args: Parameters<Duplex['destroy']>): Duplex {
    releaseOne();
    return destroy.apply(this, args);
  } as Duplex['destroy'];
}

/**
 * Every connection upgraded on this server (Socket.IO's WebSocket transport) coalesces its writes.
 * A listener tells Node the upgrade is handled: where nothing else listens (a process without the
 * push gateway), the socket is closed, as Node closes an upgrade nobody listens for.
 */
export function coalesceUpgradedWrites(server: Server): void {
  server.on('upgrade', (_req, socket: Duplex) => {
    if (server.listenerCount('upgrade') === 1) return void socket.destroy();
    coalesceWrites(socket);
  });
}
