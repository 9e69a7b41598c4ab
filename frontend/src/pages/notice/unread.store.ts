import { useEffect } from 'react';
import { create } from 'zustand';
import type { NoticeData } from '@kestrel/contracts';
import { noticeApi } from '../../api/news';
import { getSocket } from '../../api/socket';
import { useSessionStore } from '../../stores/session.store';
import { toast } from '../../stores/toast.store';

interface UnreadState {
  /** Unread messages of the signed-in user (0 for visitors). */
  unread: number;
  /** Bumped by each pushed message: the notices page reloads its list. */
  version: number;
  set: (unread: number) => void;
}

export const useUnreadStore = create<UnreadState>()((set) => ({
  unread: 0,
  version: 0,
  set: (unread) => set({ unread }),
}));

let listening: ReturnType<typeof getSocket> | null = null;
const onNotice = (m: NoticeData) => {
  toast(m.content, 4000);
  useUnreadStore.setState((s) => ({ unread: m.unread, version: s.version + 1 }));
};
/**
 * The count read again: a message sent while the socket was down (the phone asleep, the network
 * gone) is never pushed (the push is only a hint: the list and the count are the truth). On every
 * (re)connect and when the app is shown again; the notices page reloads its list with it.
 */
const reread = () => {
  const token = useSessionStore.getState().token;
  if (!token) return;
  noticeApi.unread().then(
    // The answer of this session only (a logout or another login meanwhile: not theirs).
    (d) =>
      useSessionStore.getState().token === token && useUnreadStore.setState((s) => (s.unread === d.unread ? s : { unread: d.unread, version: s.version + 1 })),
    () => undefined,
  );
};
let watchingVisibility = false;

/** The unread count for a badge: loaded for the session, then kept live by the `notice` push. */
export function useUnreadNotices(): number {
  const token = useSessionStore((s) => s.token);
  useEffect(() => {
    if (!token) {
      useUnreadStore.getState().set(0);
      return;
    }
    noticeApi.unread().then(
      (d) => useUnreadStore.getState().set(d.unread),
      () => undefined,
    );
    const socket = getSocket();
    if (listening !== socket) {
      listening?.off('notice', onNotice);
      listening?.off('connect', reread);
      socket.on('notice', onNotice);
      socket.on('connect', reread);
      listening = socket;
    }
    if (!watchingVisibility) {
      watchingVisibility = true;
      document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && reread());
    }
  }, [token]);
  return useUnreadStore((s) => s.unread);
}
