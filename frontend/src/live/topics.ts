import type { SnapshotData, Topic } from '@kestrel/contracts';
import { retryWait } from '../api/retry-wait';
import { getSocket } from '../api/socket';

/**
 * How long a subscribe answered with an error (no snapshot: the server busy or its database away)
 * waits before it is sent again: about SUBSCRIBE_RETRY_MS, doubling with each refusal in a row up to
 * SUBSCRIBE_RETRY_MAX_MS, drawn between half and all of it (`retryWait`).
 */
export const SUBSCRIBE_RETRY_MS = 1000;
export const SUBSCRIBE_RETRY_MAX_MS = 30_000;

/**
 * Subscribes to market topics and hands over each snapshot; after a reconnect without recovery
 * the rooms are gone, so it subscribes again and takes fresh snapshots. A subscribe answered with
 * an error is sent again (the pushes may come meanwhile, but a screen needs the snapshot for what
 * came before them). Returns a stop function.
 *
 * `onSubscribe` runs as each subscribe goes out. The server joins the rooms before it reads the
 * snapshots, so pushes can arrive before the answer, with higher seqs than its snapshots (and, after
 * a server restart, lower seqs than the ones seen before): a screen starts its seqs again there,
 * takes those pushes, and keeps them over an older snapshot. The function returned stops; its
 * `resync()` subscribes again (fresh snapshots) after a gap in an incremental topic's seqs.
 */
export function followTopics(
  topics: Topic[],
  onSnapshot: (snap: SnapshotData) => void,
  onSubscribe: () => void = () => undefined,
): (() => void) & { resync: () => void } {
  const socket = getSocket();
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let refused = 0;
  const subscribe = () => {
    onSubscribe();
    socket.emit('subscribe', topics, (answer) => {
      if (stopped) return;
      if (!Array.isArray(answer)) {
        clearTimeout(retry);
        retry = setTimeout(() => !stopped && socket.connected && subscribe(), retryWait(SUBSCRIBE_RETRY_MS, SUBSCRIBE_RETRY_MAX_MS, refused++));
        return;
      }
      refused = 0;
      for (const snap of answer) onSnapshot(snap);
    });
  };
  const onConnect = () => {
    if (!socket.recovered) subscribe();
  };
  socket.on('connect', onConnect);
  if (socket.connected) subscribe();
  const stop = () => {
    stopped = true;
    clearTimeout(retry);
    socket.off('connect', onConnect);
    if (socket.connected) socket.emit('unsubscribe', topics);
  };
  // A screen that sees a push missing (its seq skipped: a message lost between the server's
  // processes) subscribes again for whole snapshots.
  return Object.assign(stop, { resync: () => void (!stopped && socket.connected && subscribe()) });
}
