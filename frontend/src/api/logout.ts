import { currentLang, t } from '../i18n/i18n';
import { useSessionStore, type User } from '../stores/session.store';
import { storage } from '../stores/storage';
import { ApiError } from './client';
import { api } from './endpoints';

/** Tokens whose server session is still to be ended (a logout made offline), kept across restarts. */
export const PENDING_LOGOUT_KEY = 'pendingLogout';

const pending = (): string[] => storage.strings(PENDING_LOGOUT_KEY);

function keep(tokens: string[]): void {
  storage.set(PENDING_LOGOUT_KEY, tokens.length ? JSON.stringify(tokens) : null);
}

/** How long after a logout the server could not do the app asks it again; each failed round doubles it, up to LOGOUT_RETRY_MAX_MS. */
export const LOGOUT_RETRY_MS = 30_000;
export const LOGOUT_RETRY_MAX_MS = 600_000;

let retry: ReturnType<typeof setTimeout> | undefined;
let delay = LOGOUT_RETRY_MS;
/** One later round of `endPendingSessions` (a failing server may take longer than one wait, and a browser that stayed online fires no `online`). */
function retryLater(): void {
  if (retry) return;
  retry = setTimeout(() => {
    retry = undefined;
    void endPendingSessions();
  }, delay);
  delay = Math.min(delay * 2, LOGOUT_RETRY_MAX_MS);
}

/** The server's answer ends the question about a token: done, or the token no longer a session (expired, ended). */
const settled = (body: { type?: string; code?: number } | null): boolean =>
  !!body && (body.code === 1 || body.code === 401 || body.code === 404 || body.type === '999');

/**
 * Logs out: the server ends the session (the token stops working everywhere), and this device
 * forgets it. When the server cannot be asked (offline) or cannot do it now (an error answer: its
 * database away a moment), the device forgets it at once and the token is kept aside, to be ended
 * on the server as soon as the app can (`endPendingSessions`: online again, the next start, and
 * every LOGOUT_RETRY_MS, doubling, while any is left): a logout never leaves a working token behind. Answers what to tell the user.
 */
export async function logOut(): Promise<string> {
  const token = useSessionStore.getState().token;
  let message: string;
  try {
    message = await api.logout();
  } catch (err) {
    // A 401 (or 404): the session had ended already. Anything else: it may still work.
    const open = err instanceof ApiError && err.code !== 401 && err.code !== 404;
    if (token && open) {
      keep([...pending(), token]);
      retryLater();
    }
    message = !open ? '' : err.code === 0 ? t('settings.loggedOutOffline') : t('settings.loggedOutLater');
  }
  useSessionStore.getState().clear();
  return message || t('settings.loggedOut');
}

/**
 * A new session over one still held (a login or a registration while logged in): the old token is
 * ended on the server as a logout ends it (now, or later if the server cannot be asked), never left
 * working unseen.
 */
export function startSession(token: string, user: User): void {
  const old = useSessionStore.getState().token;
  useSessionStore.getState().setSession(token, user);
  if (!old || old === token) return;
  keep([...pending(), old]);
  void endPendingSessions();
}

/**
 * Ends on the server the sessions of logouts it could not end then. A token the server answers for
 * (ended now, or already expired or ended) is forgotten; one it could not be asked about, or that
 * it answered with an error, stays for the next time. Not through the API client: an answer about an old token must not touch the session
 * in use.
 */
export async function endPendingSessions(): Promise<void> {
  const tokens = pending();
  if (!tokens.length) return;
  const left: string[] = [];
  for (const token of tokens) {
    try {
      const res = await fetch('./api/user/logout', { method: 'POST', headers: { Authorization: token, lang: currentLang() } });
      const body = (await res.json().catch(() => null)) as { type?: string; code?: number } | null;
      if (!settled(body)) left.push(token);
    } catch {
      left.push(token);
    }
  }
  // Tokens set aside meanwhile (another logout offline) are kept too.
  keep([...left, ...pending().filter((x) => !tokens.includes(x))]);
  if (pending().length) retryLater();
  else {
    clearTimeout(retry);
    retry = undefined;
    delay = LOGOUT_RETRY_MS;
  }
}

/** Ends pending sessions now and whenever the browser comes back online. */
export function watchPendingLogouts(): void {
  void endPendingSessions();
  window.addEventListener('online', () => void endPendingSessions());
}
