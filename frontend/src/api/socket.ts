import type { ClientToServerEvents, ServerToClientEvents } from '@kestrel/contracts';
import { io, type Socket } from 'socket.io-client';
import { currentLang } from '../i18n/i18n';
import { useSessionStore } from '../stores/session.store';

export type MarketSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** After the server refused or closed the connection, the app connects again this long after. */
export const SOCKET_RETRY_MS = 2000;

let socket: MarketSocket | null = null;
let socketToken: string | null = null;

/**
 * The one Socket.IO connection of the app (docs/api.md "Socket.IO"): same origin, path
 * /socket.io, the session token in the handshake (visitors connect without one). A new token
 * (login, logout) reconnects so the private room follows the session.
 */
export function getSocket(): MarketSocket {
  const token = useSessionStore.getState().token;
  if (socket && socketToken === token) return socket;
  socket?.disconnect();
  socketToken = token;
  // `lang` lets the server word pushed messages (notices) in the app's language; `feed: 'batch'` takes
  // the market topics as one `feed` event per conflation cycle, whose items reach the handlers of
  // their own events (`depth`, `trades`, …), so the screens listen as if each came alone.
  const s: MarketSocket = io(window.location.origin, {
    path: '/socket.io',
    auth: token ? { token, lang: currentLang(), feed: 'batch' } : { feed: 'batch' },
    transports: ['websocket', 'polling'],
  });
  s.on('feed', (items) => {
    for (const [event, message] of items) for (const handler of s.listeners(event)) (handler as (m: typeof message) => void)(message);
  });
  // Socket.IO reconnects by itself after a lost transport, not after the server refused the connection
  // (its session could not be read: the database away a moment) or closed it: then the app does.
  const again = () =>
    setTimeout(() => {
      if (socket === s && !s.connected && !s.active) s.connect();
    }, SOCKET_RETRY_MS);
  s.on('connect_error', () => {
    if (!s.active) again();
  });
  s.on('disconnect', (reason) => {
    if (reason === 'io server disconnect') again();
  });
  socket = s;
  return s;
}

/**
 * The app's language changed: the server words pushed notices by the handshake's `lang`, so a
 * signed-in socket reconnects with the new one. The same socket object reconnects, so the screens'
 * listeners stay, and their topics are subscribed again on `connect`.
 */
export function setSocketLanguage(lang: string): void {
  if (!socket || !socketToken) return;
  socket.auth = { ...(socket.auth as Record<string, unknown>), lang };
  socket.disconnect().connect();
}
