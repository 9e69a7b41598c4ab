import type { ClientToServerEvents, ServerToClientEvents } from '@kestrel/contracts';
import { io, type Socket } from 'socket.io-client';
import { currentLang } from '../i18n/i18n';
import { retryWait } from './retry-wait';
import { useSessionStore } from '../stores/session.store';

export type MarketSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * After the server refused or closed the connection, the app connects again: the n-th time in a
 * row after a wait drawn between half and all of SOCKET_RETRY_MS × 2^n, at most SOCKET_RETRY_MAX_MS
 * (every app refused at once, by a server restarting or its database away, does not come back in
 * step every 2 s, each time asking for its session).
 */
export const SOCKET_RETRY_MS = 2000;
export const SOCKET_RETRY_MAX_MS = 30_000;

let socket: MarketSocket | null = null;
let socketToken: string | null = null;

/** The handshake's `auth`: the session token (none for visitors), the app's language, batched market topics. */
const authFor = (token: string | null) => (token ? { token, lang: currentLang(), feed: 'batch' } : { feed: 'batch' });

// The session changed (a login, a logout, a session that ended): the socket reconnects with the new
// token at once, so the private room follows the session (not only when a screen next asks for the
// socket: a logged-out app on the login page stayed in the old user's room and got their notices).
// The same socket object reconnects, so the screens' listeners stay and their topics are subscribed
// again on `connect`.
useSessionStore.subscribe((s) => {
  if (!socket || s.token === socketToken) return;
  socketToken = s.token;
  socket.auth = authFor(s.token);
  socket.disconnect().connect();
});

/**
 * The one Socket.IO connection of the app (docs/api.md "Socket.IO"): same origin, path
 * /socket.io, the session token in the handshake (visitors connect without one). Made once; a new
 * token (login, logout) reconnects it (the subscription above) so the private room follows the session.
 */
export function getSocket(): MarketSocket {
  if (socket) return socket;
  const token = useSessionStore.getState().token;
  socketToken = token;
  // `lang` lets the server word pushed messages (notices) in the app's language; `feed: 'batch'` takes
  // the market topics as one `feed` event per conflation cycle, whose items reach the handlers of
  // their own events (`depth`, `trades`, …), so the screens listen as if each came alone.
  const s: MarketSocket = io(window.location.origin, {
    path: '/socket.io',
    auth: authFor(token),
    transports: ['websocket', 'polling'],
  });
  s.on('feed', (items) => {
    for (const [event, message] of items) for (const handler of s.listeners(event)) (handler as (m: typeof message) => void)(message);
  });
  // Socket.IO reconnects by itself after a lost transport, not after the server refused the connection
  // (its session could not be read: the database away a moment) or closed it: then the app does.
  let failures = 0;
  const again = () =>
    setTimeout(
      () => {
        if (!s.connected && !s.active) s.connect();
      },
      retryWait(SOCKET_RETRY_MS, SOCKET_RETRY_MAX_MS, failures++),
    );
  s.on('connect', () => (failures = 0));
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
