import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { tradingApi, type MarketInfo } from '../../api/trading';
import { storage } from '../../stores/storage';

let cache: MarketInfo[] | null = null;

/** The spot markets (`currencyMatch/all`, loaded once) and the chosen one: `?symbol=`, else the last chosen, else the first. */
export function useMarkets() {
  const [markets, setMarkets] = useState<MarketInfo[]>(cache ?? []);
  const [params, setParams] = useSearchParams();
  useEffect(() => {
    if (cache) return;
    tradingApi.markets().then(
      (list) => {
        cache = list;
        setMarkets(list);
      },
      () => undefined,
    );
  }, []);
  const wanted = params.get('symbol') ?? storage.get('symbol');
  const market = useMemo(() => markets.find((m) => m.symbol === wanted) ?? markets[0] ?? null, [markets, wanted]);
  const choose = (symbol: string) => {
    storage.set('symbol', symbol);
    setParams({ symbol }, { replace: true });
  };
  return { markets, market, choose };
}
