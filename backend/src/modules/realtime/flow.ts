import type { Socket } from 'socket.io';

/**
 * Flow control of the reads a socket asks for (market snapshots, chat history): a client that asks
 * and never reads the answers must exhaust neither the server's memory nor the database pool.
 */
/** Reads of one socket running at once; more are refused until an answer is read. */
export const MAX_READS_IN_FLIGHT = 4;
/** Packets waiting in a socket's buffer (answers and pushes it has not read) past which it may not ask for more. */
export const MAX_UNREAD_PACKETS = 64;

/** Packets waiting in the socket's Engine.IO buffer, not yet written (its client reads slower than it is sent to). */
function unread(socket: Socket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] } | undefined)?.writeBuffer?.length ?? 0;
}

/** The socket may not ask for another read now. */
export function readsBacklogged(socket: Socket): boolean {
  return (socket.data.reading ?? 0) >= MAX_READS_IN_FLIGHT || unread(socket) > MAX_UNREAD_PACKETS;
}

/** `order` requests of one socket taken and not yet answered, past which its connection is closed. */
export const MAX_ORDERS_IN_FLIGHT = 256;
/** Packets waiting unread in a socket's buffer past which an `order` closes its connection (answers are small: ≲ 0.5 MB). */
export const MAX_UNREAD_ORDER_ANSWERS = 1024;

/**
 * An `order` on a socket that asks faster than it is answered, or does not read its answers: its
 * connection is closed and the order not taken (an answer, even a refusal, would pile up unread:
 * the plain WebSocket endpoint stops reading such a connection, which Engine.IO cannot). True when closed.
 */
export function ordersOverflow(socket: Socket): boolean {
  if ((socket.data.ordering ?? 0) < MAX_ORDERS_IN_FLIGHT && unread(socket) <= MAX_UNREAD_ORDER_ANSWERS) return false;
  socket.disconnect(true);
  return true;
}

/** Answers one of the socket's `order` requests, counted until its answer is handed over (`deliver`). */
export function countedOrder<T>(socket: Socket, answer: Promise<T>, deliver: (reply: T) => void): void {
  socket.data.ordering = (socket.data.ordering ?? 0) + 1;
  void answer.then(deliver).finally(() => socket.data.ordering--);
}

/** Runs one of the socket's reads, counted while it runs. */
export async function counted<T>(socket: Socket, read: () => Promise<T>): Promise<T> {
  socket.data.reading = (socket.data.reading ?? 0) + 1;
  try {
    return await read();
  } finally {
    socket.data.reading--;
  }
}
