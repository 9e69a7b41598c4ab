import type { Period, TickerData } from '@kestrel/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Change } from '../../../components/change';
import { compact, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { useLive } from '../../../live/live.store';
import { StaleBadge } from '../../../live/stale-badge';
import { useMarketStore } from '../../../stores/market.store';
import { MarketSwitcher } from '../market-switcher';
import { MarketsPending } from '../markets-pending';
import { useMarkets } from '../use-markets';
import { KlineChart } from './kline-chart';
import { PeriodTabs } from './period-tabs';

/** The full-screen chart: the same K-line as the trade page, filling the screen below its header and period row (`.page--chart`). */
export function KlinePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { markets, market, choose, state: marketsState, retry: retryMarkets } = useMarkets();
  const { status } = useLive();
  const [period, setPeriod] = useState<Period>('1min');
  const follow = useMarketStore((s) => s.follow);
  const ticker = useMarketStore((s) => s.tickers.find((m) => m.symbol === market?.symbol)) as TickerData | undefined;
  useEffect(() => follow(), [follow]);
  return (
    <Page title={t(titleKey)} className="page--chart">
      <StaleBadge status={status} />
      <div className="chart-head">
        {market && <MarketSwitcher markets={markets} value={market.symbol} onChange={choose} />}
        <strong className="num">{market ? truncate(ticker?.last, market.price_decimals) : '--'}</strong>
        <Change pct={ticker?.change_pct} />
        <span className="muted small">
          {t('trade.high')} {market ? truncate(ticker?.high, market.price_decimals) : '--'} · {t('trade.low')}{' '}
          {market ? truncate(ticker?.low, market.price_decimals) : '--'} · {t('trade.vol')} {compact(ticker?.volume)}
        </span>
      </div>
      <PeriodTabs value={period} onChange={setPeriod} />
      {market || marketsState === 'loading' ? <KlineChart market={market} period={period} /> : <MarketsPending state={marketsState} retry={retryMarkets} />}
    </Page>
  );
}
