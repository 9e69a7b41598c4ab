import type { ClientToServerEvents, ServerToClientEvents } from '@kestrel/contracts';
import { io, type Socket } from 'socket.io-client';
import { currentLang } from '../i18n/i18n';
import { useSessionStore } from '../stores/session.store';

export type MarketSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

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
  // `lang` lets the server word pushed messages (notices) in the app's language.
  socket = io(window.location.origin, { path: '/socket.io', auth: token ? { token, lang: currentLang() } : {}, transports: ['websocket', 'polling'] });
  return socket;
}
