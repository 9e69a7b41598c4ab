import { create } from 'zustand';

/** Shell state that several screens touch: the side menu. */
export const useUiStore = create<{ menuOpen: boolean; setMenuOpen: (open: boolean) => void }>((set) => ({
  menuOpen: false,
  setMenuOpen: (menuOpen) => set({ menuOpen }),
}));
