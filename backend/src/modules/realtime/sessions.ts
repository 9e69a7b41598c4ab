import type { Socket } from 'socket.io';
import { handshakeToken, SubjectType, TokenService } from '../../infra/auth/token.service';
import type { AppConfig } from '../../infra/config/config';

/**
 * How a socket's session ends for the push channel (besides the revocation sweep): at the token's
 * expiry (`atExpiry`), and by a periodic check of the tokens of the sockets in private rooms
 * (`recheckSockets`, every `recheckMs`). Either way the socket leaves its private rooms and stays
 * connected with market data only, as a revoked session's does.
 */

/**
 * Every this many ms each process checks, uncached, the tokens of its own sockets in private rooms:
 * a revocation whose sweep missed a socket is caught within it (the sweep runs on the revoking
 * process; another process's token cache may have let a socket in after it; its fetchSockets may
 * fail). A few token-cache periods (TOKEN_CACHE_MS), at least a second.
 */
export const recheckMs = (config: Pick<AppConfig, 'tokenCacheMs'>): number => Math.max(1000, 3 * config.tokenCacheMs);

/** setTimeout's longest delay; a later expiry is waited for in steps. */
const MAX_DELAY = 2 ** 31 - 1;
/** Per socket, its expiry timers by kind (not in `socket.data`: the adapter sends that to other processes). */
const timers = new WeakMap<Socket, Map<string, NodeJS.Timeout>>();

/**
 * Runs `expire` at `expiresAt` (ms since the epoch; at once if it has passed), unless the socket
 * disconnects first. One timer per socket and `kind`: a later call replaces the earlier one.
 */
export function atExpiry(socket: Socket, kind: string, expiresAt: number, expire: () => void): void {
  if (!socket.connected) return; // its disconnect has run: a timer would outlive it
  let mine = timers.get(socket);
  if (!mine) {
    const created = new Map<string, NodeJS.Timeout>();
    socket.once('disconnect', () => {
      for (const timer of created.values()) clearTimeout(timer);
      created.clear();
    });
    timers.set(socket, created);
    mine = created;
  }
  clearTimeout(mine.get(kind));
  const own = mine;
  const wait = (): void => {
    const left = expiresAt - Date.now();
    if (left <= 0) {
      own.delete(kind);
      return expire();
    }
    const timer = setTimeout(wait, Math.min(left, MAX_DELAY));
    timer.unref();
    own.set(kind, timer);
  };
  wait();
}

/**
 * Checks the handshake tokens of these sockets again in the database (one read per batch of
 * distinct tokens, no cache) and calls `drop` for each connected one whose token no longer opens
 * the session of the subject it joined as (revoked, expired, or none).
 */
export async function recheckSockets(
  tokens: TokenService,
  subjectType: SubjectType,
  sockets: Iterable<[Socket, number]>,
  drop: (socket: Socket) => void,
): Promise<void> {
  const byToken = new Map<string, Array<[Socket, number]>>();
  for (const entry of sockets) {
    const token = handshakeToken(entry[0].handshake);
    if (!token) drop(entry[0]);
    else {
      const list = byToken.get(token);
      if (list) list.push(entry);
      else byToken.set(token, [entry]);
    }
  }
  if (!byToken.size) return;
  const valid = await tokens.sessions([...byToken.keys()], subjectType);
  for (const [token, list] of byToken) for (const [socket, subjectId] of list) if (valid.get(token)?.subjectId !== subjectId && socket.connected) drop(socket);
}
