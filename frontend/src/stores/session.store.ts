import { create } from 'zustand';
import { storage } from './storage';

/** The account as the API returns it (`user/center`, login and registration answers). */
export interface User {
  id: number;
  account: string;
  nickname: string;
  area_code: string | null;
  phone: string | null;
  email: string | null;
  invite_code: string;
  verification_level: number;
  has_fund_password: boolean;
  lang: string;
  created_at: string;
}

interface SessionState {
  token: string | null;
  user: User | null;
  setSession: (token: string, user: User) => void;
  setUser: (user: User) => void;
  clear: () => void;
}

function readUser(): User | null {
  const raw = storage.get('user');
  if (!raw) return null;
  try {
    return JSON.parse(raw) as User;
  } catch {
    return null;
  }
}

/** Spec §3 "Session": token and user, persisted under `token` and `user`. A token means logged in. */
export const useSessionStore = create<SessionState>((set, get) => ({
  token: storage.get('token'),
  user: readUser(),
  setSession: (token, user) => {
    storage.set('token', token);
    storage.set('user', JSON.stringify(user));
    set({ token, user });
  },
  setUser: (user) => {
    storage.set('user', JSON.stringify(user));
    set({ user });
  },
  clear: () => {
    // What is kept is this session's only while it holds this token: another tab may have logged
    // in anew meanwhile (its session stays for the next start of this one).
    const kept = storage.get('token');
    if (kept === null || kept === get().token) {
      storage.set('token', null);
      storage.set('user', null);
    }
    set({ token: null, user: null });
  },
}));

export const useIsLoggedIn = () => useSessionStore((s) => s.token !== null);
