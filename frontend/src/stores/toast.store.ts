import { create } from 'zustand';

export interface Toast {
  id: number;
  text: string;
}

interface ToastState {
  toasts: Toast[];
  show: (text: string, ms?: number) => void;
  dismiss: (id: number) => void;
}

let nextId = 1;

/** Short messages at the bottom of the screen; at most three at once, each gone after 2.5 s. */
export const useToastStore = create<ToastState>((set, get) => ({
  toasts: [],
  show: (text, ms = 2500) => {
    const id = nextId++;
    set({ toasts: [...get().toasts.filter((t) => t.text !== text), { id, text }].slice(-3) });
    setTimeout(() => get().dismiss(id), ms);
  },
  dismiss: (id) => set({ toasts: get().toasts.filter((t) => t.id !== id) }),
}));

export const toast = (text: string, ms?: number) => useToastStore.getState().show(text, ms);
