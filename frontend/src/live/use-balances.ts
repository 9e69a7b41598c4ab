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
  const load = useCallback(
    () =>
      walletApi.list(pricing).then(
        (w) => {
          setItems(w.accounts.find((a) => a.account === account)?.items ?? []);
          setSince(useLiveStore.getState().balanceVersion);
        },
        () => undefined,
      ),
    [account, pricing],
  );
  useEffect(() => void load(), [load, resync]);
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
