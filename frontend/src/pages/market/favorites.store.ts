import { useEffect } from 'react';
import { create } from 'zustand';
import { marketsApi } from '../../api/markets';
import { useSessionStore } from '../../stores/session.store';
import { storage } from '../../stores/storage';

/** A visitor's favourites stay in this browser; a logged-in user's are kept on the server. */
export const VISITOR_KEY = 'favorites';

interface FavoritesState {
  /** Whose list this is: the session token, or '' for a visitor. */
  owner: string | null;
  symbols: string[];
  load: (token: string | null) => void;
  toggle: (symbol: string) => Promise<void>;
}

export const useFavoritesStore = create<FavoritesState>((set, get) => ({
  owner: null,
  symbols: [],
  load: (token) => {
    const owner = token ?? '';
    if (get().owner === owner) return;
    if (!token) {
      set({ owner, symbols: storage.strings(VISITOR_KEY) });
      return;
    }
    set({ owner, symbols: [] });
    marketsApi.favorites().then(
      (r) => {
        if (get().owner === owner) set({ symbols: r.symbols });
      },
      () => undefined,
    );
  },
  toggle: async (symbol) => {
    const { owner, symbols } = get();
    const on = symbols.includes(symbol);
    if (!owner) {
      const next = on ? symbols.filter((s) => s !== symbol) : [...symbols, symbol];
      storage.set(VISITOR_KEY, JSON.stringify(next));
      set({ symbols: next });
      return;
    }
    // The server's answer is the list: a refusal (its message is shown) leaves the list as it was.
    const r = await (on ? marketsApi.removeFavorite(symbol) : marketsApi.addFavorite(symbol)).catch(() => null);
    if (r && get().owner === owner) set({ symbols: r.symbols });
  },
}));

/** The favourites of whoever uses the app now, reloaded when the session changes. */
export function useFavorites() {
  const token = useSessionStore((s) => s.token);
  const load = useFavoritesStore((s) => s.load);
  useEffect(() => load(token), [token, load]);
  const symbols = useFavoritesStore((s) => s.symbols);
  const toggle = useFavoritesStore((s) => s.toggle);
  return { symbols, toggle };
}
