import { currentLang, t } from '../i18n/i18n';
import { useSessionStore } from '../stores/session.store';
import { storage } from '../stores/storage';
import { ApiError } from './client';
import { api } from './endpoints';

/** Tokens whose server session is still to be ended (a logout made offline), kept across restarts. */
export const PENDING_LOGOUT_KEY = 'pendingLogout';

const pending = (): string[] => storage.strings(PENDING_LOGOUT_KEY);

function keep(tokens: string[]): void {
  storage.set(PENDING_LOGOUT_KEY, tokens.length ? JSON.stringify(tokens) : null);
}

/**
 * Logs out: the server ends the session (the token stops working everywhere), and this device
 * forgets it. Without a connection the device forgets it at once and the token is kept aside, to
 * be ended on the server as soon as the app is online again (`endPendingSessions`): a logout never
 * leaves a working token behind. Answers what to tell the user.
 */
export async function logOut(): Promise<string> {
  const token = useSessionStore.getState().token;
  let message: string;
  try {
    message = await api.logout();
  } catch (err) {
    if (token && err instanceof ApiError && err.code === 0) keep([...pending(), token]);
    message = err instanceof ApiError && err.code === 0 ? t('settings.loggedOutOffline') : '';
  }
  useSessionStore.getState().clear();
  return message || t('settings.loggedOut');
}

/**
 * Ends on the server the sessions of logouts made offline. A token the server answers for (ended
 * now, or already expired or ended) is forgotten; one it could not be asked about stays for the
 * next time. Not through the API client: an answer about an old token must not touch the session
 * in use.
 */
export async function endPendingSessions(): Promise<void> {
  const tokens = pending();
  if (!tokens.length) return;
  const left: string[] = [];
  for (const token of tokens) {
    try {
      const res = await fetch('./api/user/logout', { method: 'POST', headers: { Authorization: token, lang: currentLang() } });
      const body = (await res.json().catch(() => null)) as { code?: number } | null;
      if (!body || typeof body.code !== 'number') left.push(token);
    } catch {
      left.push(token);
    }
  }
  // Tokens set aside meanwhile (another logout offline) are kept too.
  keep([...left, ...pending().filter((x) => !tokens.includes(x))]);
}

/** Ends pending sessions now and whenever the browser comes back online. */
export function watchPendingLogouts(): void {
  void endPendingSessions();
  window.addEventListener('online', () => void endPendingSessions());
}
