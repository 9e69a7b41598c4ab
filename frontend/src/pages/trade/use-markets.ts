import { useCallback, useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { tradingApi, type MarketInfo } from '../../api/trading';
import { storage } from '../../stores/storage';

let cache: MarketInfo[] | null = null;

/** Where the market list stands: asked for, not answered (`failed`: the screen offers to try again), or here. */
export type MarketsState = 'loading' | 'failed' | 'ready';

/**
 * The spot markets (`currencyMatch/all`, loaded once) and the chosen one: `?symbol=`, else the last
 * chosen, else the first. A failed load is kept as `failed` with `retry`, for `MarketsPending`.
 */
export function useMarkets() {
  const [markets, setMarkets] = useState<MarketInfo[]>(cache ?? []);
  const [state, setState] = useState<MarketsState>(cache ? 'ready' : 'loading');
  const [params, setParams] = useSearchParams();
  const retry = useCallback(() => {
    setState('loading');
    tradingApi.markets().then(
      (list) => {
        cache = list;
        setMarkets(list);
        setState('ready');
      },
      () => setState('failed'),
    );
  }, []);
  useEffect(() => {
    if (!cache) retry();
  }, [retry]);
  const wanted = params.get('symbol') ?? storage.get('symbol');
  const market = useMemo(() => markets.find((m) => m.symbol === wanted) ?? markets[0] ?? null, [markets, wanted]);
  const choose = (symbol: string) => {
    storage.set('symbol', symbol);
    setParams({ symbol }, { replace: true });
  };
  return { markets, market, choose, state, retry };
}
