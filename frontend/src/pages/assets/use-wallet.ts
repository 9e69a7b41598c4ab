import { useCallback, useEffect, useRef, useState } from 'react';
import { walletApi, type WalletItem, type WalletList } from '../../api/wallet';
import { cmp } from '../../components/decimal';
import { useLive, useLiveStore } from '../../live/live.store';
import { usePricingStore } from '../../stores/pricing.store';
import { storage } from '../../stores/storage';
import { create } from 'zustand';

/**
 * `wallet/list` in the chosen pricing currency, loaded again after a resync and shortly after
 * each private `balance` push (the push carries amounts; the list also has their values).
 */
export function useWallet() {
  const { resync, status } = useLive();
  const pricing = usePricingStore((s) => s.code);
  const balanceVersion = useLiveStore((s) => s.balanceVersion);
  const [wallet, setWallet] = useState<WalletList | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const load = useCallback(() => walletApi.list(pricing).then(setWallet, () => undefined), [pricing]);
  useEffect(() => void load(), [load, resync]);
  useEffect(() => {
    if (!balanceVersion) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void load(), 300);
    return () => clearTimeout(timer.current);
  }, [balanceVersion, load]);
  return { wallet, reload: load, status };
}

/** "Hide small coins" (stored): hides a coin worth less than 1 USD (in any pricing currency) and empty ones. */
export const useHideSmall = create<{ hide: boolean; set: (hide: boolean) => void }>((set) => ({
  hide: storage.get('hideSmall') === '1',
  set: (hide) => {
    storage.set('hideSmall', hide ? '1' : '0');
    set({ hide });
  },
}));

export const isSmall = (item: WalletItem, rate: string) => cmp(item.value, rate) < 0;
