import { useCallback, useEffect, useRef } from 'react';
import { walletApi, type WalletItem } from '../../api/wallet';
import { cmp } from '../../components/decimal';
import { useLoaded } from '../../components/use-loaded';
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
  const read = useCallback(() => walletApi.list(pricing), [pricing]);
  const { data: wallet, failed, reload: load } = useLoaded(read);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const first = useRef(true);
  // Read on mount and for another pricing currency (useLoaded), again after a resync.
  useEffect(() => {
    if (first.current) first.current = false;
    else void load();
  }, [resync]);
  useEffect(() => {
    if (!balanceVersion) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void load(), 300);
    return () => clearTimeout(timer.current);
  }, [balanceVersion, load]);
  return { wallet, failed, reload: load, status };
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
