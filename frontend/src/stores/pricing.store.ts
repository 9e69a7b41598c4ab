import { create } from 'zustand';
import { storage } from './storage';

/** The pricing currency every displayed total uses (`coin/rate/list` code), stored under `pricing`. */
interface PricingState {
  code: string;
  setCode: (code: string) => void;
}

export const usePricingStore = create<PricingState>((set) => ({
  code: storage.get('pricing') ?? 'USD',
  setCode: (code) => {
    storage.set('pricing', code);
    set({ code });
  },
}));
