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
  /** A stored JSON list of strings (anything else in it is left out; nothing or unreadable: empty). */
  strings(key: string): string[] {
    try {
      const v: unknown = JSON.parse(this.get(key) ?? '[]');
      return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
    } catch {
      return [];
    }
  },
};

/**
 * Keys this app keeps across "clear cache": the session, the user's choices (a visitor's
 * favourites live only here, docs/api.md; "hide small balances"), and the sessions a logout made
 * offline has still to end on the server (api/logout.ts).
 */
export const KEPT_KEYS = ['token', 'user', 'lang', 'theme', 'upColor', 'pricing', 'favorites', 'hideSmall', 'pendingLogout'];
