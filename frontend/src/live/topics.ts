import type { SnapshotData, Topic } from '@kestrel/contracts';
import { getSocket } from '../api/socket';

/**
 * Subscribes to market topics and hands over each snapshot; after a reconnect without recovery
 * the rooms are gone, so it subscribes again and takes fresh snapshots. Returns a stop function.
 */
export function followTopics(topics: Topic[], onSnapshot: (snap: SnapshotData) => void): () => void {
  const socket = getSocket();
  let stopped = false;
  const subscribe = () =>
    socket.emit('subscribe', topics, (answer) => {
      if (stopped || !Array.isArray(answer)) return;
      for (const snap of answer) onSnapshot(snap);
    });
  const onConnect = () => {
    if (!socket.recovered) subscribe();
  };
  socket.on('connect', onConnect);
  if (socket.connected) subscribe();
  return () => {
    stopped = true;
    socket.off('connect', onConnect);
    if (socket.connected) socket.emit('unsubscribe', topics);
  };
}
