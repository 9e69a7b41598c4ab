/** localStorage that never throws (private mode, quota): the app keeps working without persistence. */
export const storage = {
  get(key: string): string | null {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: string, value: string | null): void {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch {
      // Not persisted; the in-memory state still applies for this visit.
    }
  },
};

/** Keys this app keeps across "clear cache": the session and the user's choices. */
/** Also the sessions a logout made offline has still to end on the server (api/logout.ts). */
export const KEPT_KEYS = ['token', 'user', 'lang', 'theme', 'upColor', 'pricing', 'pendingLogout'];
