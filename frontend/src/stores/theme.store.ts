import { create } from 'zustand';
import { storage } from './storage';

export type Theme = 'light' | 'dark';
/** Which direction is green: `green-up` (international) or `red-up` (mainland China convention). */
export type UpColor = 'green-up' | 'red-up';

interface ThemeState {
  /** The user's choice; null until they choose: the app follows the system then. */
  chosen: Theme | null;
  system: Theme;
  upColor: UpColor;
  setTheme: (theme: Theme) => void;
  setSystem: (theme: Theme) => void;
  setUpColor: (upColor: UpColor) => void;
}

const systemTheme = (): Theme => (typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
const stored = storage.get('theme');

export const useThemeStore = create<ThemeState>((set) => ({
  chosen: stored === 'light' || stored === 'dark' ? stored : null,
  system: systemTheme(),
  upColor: storage.get('upColor') === 'red-up' ? 'red-up' : 'green-up',
  setTheme: (theme) => {
    storage.set('theme', theme);
    set({ chosen: theme });
  },
  setSystem: (system) => set({ system }),
  setUpColor: (upColor) => {
    storage.set('upColor', upColor);
    set({ upColor });
  },
}));

/** The theme in effect: the user's choice, else the system's. */
export const useTheme = () => useThemeStore((s) => s.chosen ?? s.system);

/** Applies the theme and up colour to <html> (CSS variables switch on these attributes). */
export function applyTheme(theme: Theme, upColor: UpColor): void {
  const root = document.documentElement;
  root.dataset.theme = theme;
  root.dataset.up = upColor;
  root.style.colorScheme = theme;
  document.querySelector('meta[name="theme-color"]')?.setAttribute('content', theme === 'dark' ? '#0b1220' : '#ffffff');
}
