import { useEffect } from 'react';
import { api } from '../api/endpoints';
import { useSessionStore } from '../stores/session.store';

/** The logged-in user, refreshed from `user/center` when a screen opens (fund password state, contacts). */
export function useFreshUser() {
  const token = useSessionStore((s) => s.token);
  const user = useSessionStore((s) => s.user);
  useEffect(() => {
    if (!token) return;
    api.center().then(
      (u) => useSessionStore.getState().token === token && useSessionStore.getState().setUser(u),
      () => undefined,
    );
  }, [token]);
  return token ? user : null;
}

/** "+86 138****8000", "ja***@example.com": enough to recognise, not to read out. */
export function maskContact(user: { phone: string | null; area_code: string | null; email: string | null }): string {
  if (user.phone) {
    const p = user.phone;
    return `+${user.area_code ?? ''} ${p.length > 6 ? `${p.slice(0, 3)}****${p.slice(-4)}` : p}`;
  }
  if (user.email) {
    const [name, domain] = user.email.split('@');
    return `${name.slice(0, 2)}***@${domain}`;
  }
  return '';
}
