import { useCallback, useEffect, useState } from 'react';
import { walletApi, type AccountType, type WalletItem } from '../api/wallet';
import { usePricingStore } from '../stores/pricing.store';
import { balanceKey, useLive, useLiveStore } from './live.store';

export interface Holding {
  currency_id: number;
  symbol: string;
  available: string;
  frozen: string;
  /** The coin's display decimals (from `wallet/list`). */
  decimals: number;
}

/** How long a failed first load of the holdings waits before it is tried again. */
const RETRY_MS = 3000;

/**
 * One account's holdings by symbol: the `wallet/list` snapshot (again after a resync), with the
 * private `balance` pushes applied on top as they arrive.
 */
export function useAccountHoldings(account: AccountType = 'coin') {
  const { resync } = useLive();
  const pricing = usePricingStore((s) => s.code);
  const balances = useLiveStore((s) => s.balances);
  const [items, setItems] = useState<WalletItem[] | null>(null);
  const [since, setSince] = useState(0);
  // A load that failed before any came is tried again (a screen would otherwise show no balance until it is left).
  const [failures, setFailures] = useState(0);
  const load = useCallback(
    () =>
      walletApi.list(pricing).then(
        (w) => {
          setItems(w.accounts.find((a) => a.account === account)?.items ?? []);
          setSince(useLiveStore.getState().balanceVersion);
        },
        () => setFailures((n) => n + 1),
      ),
    [account, pricing],
  );
  useEffect(() => void load(), [load, resync]);
  useEffect(() => {
    if (!failures || items !== null) return;
    const timer = setTimeout(() => void load(), RETRY_MS);
    return () => clearTimeout(timer);
  }, [failures, items, load]);
  const holdings: Record<string, Holding> = {};
  for (const it of items ?? []) {
    const live = balances[balanceKey(account, it.currency_id)];
    holdings[it.symbol] = {
      currency_id: it.currency_id,
      symbol: it.symbol,
      available: live ? live.available : it.available,
      frozen: live ? live.frozen : it.frozen,
      decimals: it.decimals,
    };
  }
  return { holdings, loaded: items !== null, reload: load, since };
}
