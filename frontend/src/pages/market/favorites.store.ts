import { useEffect } from 'react';
import { create } from 'zustand';
import { marketsApi } from '../../api/markets';
import { useSessionStore } from '../../stores/session.store';
import { storage } from '../../stores/storage';

/** A visitor's favourites stay in this browser; a logged-in user's are kept on the server. */
export const VISITOR_KEY = 'favorites';

interface FavoritesState {
  /** Whose list this is: the session token, or '' for a visitor (null: none yet, or the last load failed). */
  owner: string | null;
  symbols: string[];
  load: (token: string | null) => void;
  toggle: (symbol: string) => Promise<void>;
}

/** Counts loads and toggles: only the newest one's answer is applied. */
let latest = 0;

export const useFavoritesStore = create<FavoritesState>((set, get) => ({
  owner: null,
  symbols: [],
  load: (token) => {
    const owner = token ?? '';
    if (get().owner === owner) return;
    const mine = ++latest;
    if (!token) {
      set({ owner, symbols: storage.strings(VISITOR_KEY) });
      return;
    }
    set({ owner, symbols: [] });
    marketsApi.favorites().then(
      (r) => {
        if (mine === latest) set({ symbols: r.symbols });
      },
      // Not loaded: the next load (the Markets tab opened again) asks once more.
      () => {
        if (mine === latest) set({ owner: null });
      },
    );
  },
  toggle: async (symbol) => {
    const { owner, symbols } = get();
    const on = symbols.includes(symbol);
    const next = on ? symbols.filter((s) => s !== symbol) : [...symbols, symbol];
    if (owner === '') {
      storage.set(VISITOR_KEY, JSON.stringify(next));
      set({ symbols: next });
      return;
    }
    // Shown at once, then the server's answer (the whole list) replaces it: the newest answer only, as
    // answers can arrive out of order. A refusal (its message is shown) puts the list back as it was.
    const mine = ++latest;
    set({ symbols: next });
    const r = await (on ? marketsApi.removeFavorite(symbol) : marketsApi.addFavorite(symbol)).catch(() => null);
    if (mine === latest) set({ symbols: r ? r.symbols : symbols });
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
