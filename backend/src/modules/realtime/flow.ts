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

/** Runs one of the socket's reads, counted while it runs. */
export async function counted<T>(socket: Socket, read: () => Promise<T>): Promise<T> {
  socket.data.reading = (socket.data.reading ?? 0) + 1;
  try {
    return await read();
  } finally {
    socket.data.reading--;
  }
}
