import type { Period, TickerData } from '@kestrel/contracts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../../app/paths';
import { Change } from '../../../components/change';
import { Icon } from '../../../components/icons';
import { compact, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { useLive } from '../../../live/live.store';
import { StaleBadge } from '../../../live/stale-badge';
import { useAccountHoldings } from '../../../live/use-balances';
import { useMarketStore } from '../../../stores/market.store';
import { KlineChart } from '../kline/kline-chart';
import { PeriodTabs } from '../kline/period-tabs';
import { MarketSwitcher } from '../market-switcher';
import { MarketsPending } from '../markets-pending';
import { useMarkets } from '../use-markets';
import { MyOrders } from './my-orders';
import { LatestTrades, OrderBook } from './order-book';
import { TradeForm } from './trade-form';
import { useLimitPrice } from './use-limit-price';
import { useMarketFeed } from './use-market-feed';

/** Spot trade: market switcher, 24 h figures, K-line, depth, latest trades, buy/sell, my orders. */
export function TradePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { markets, market, choose, state: marketsState, retry: retryMarkets } = useMarkets();
  const { status, offline } = useLive();
  const [period, setPeriod] = useState<Period>('1min');
  const [placed, setPlaced] = useState(0);
  const follow = useMarketStore((s) => s.follow);
  const ticker = useMarketStore((s) => s.tickers.find((m) => m.symbol === market?.symbol)) as TickerData | undefined;
  const tickersFresh = useMarketStore((s) => s.fresh);
  useEffect(() => follow(), [follow]);
  const { depth, trades, tradesIn, failed: feedFailed, retry: retryFeed } = useMarketFeed(market?.symbol);
  const { holdings, reload } = useAccountHoldings('coin');
  // A limit order starts at the last price once it is known: the latest trades', else the tickers'
  // while they are current (kept from an earlier visit, they can be minutes old: not a price to deal at).
  const last = trades[0]?.price ?? ticker?.last ?? null;
  const dealLast = trades[0]?.price ?? (tickersFresh ? ticker?.last : undefined) ?? null;
  const [price, setPrice] = useLimitPrice(market?.symbol, dealLast);
  const onPlaced = useCallback(() => {
    setPlaced((n) => n + 1);
    void reload();
  }, [reload]);

  return (
    <Page
      title={t(titleKey)}
      back={false}
      right={
        <Link className="icon-button" to={`${PATHS.kline}${market ? `?symbol=${encodeURIComponent(market.symbol)}` : ''}`} aria-label={t('trade.fullChart')}>
          <Icon name="candles" />
        </Link>
      }
    >
      <StaleBadge status={status} />
      {!market ? (
        <MarketsPending state={marketsState} retry={retryMarkets} />
      ) : (
        <>
          <section className="card ticker-card" aria-label={t('trade.summary')}>
            <div className="ticker-card__top">
              <MarketSwitcher markets={markets} value={market.symbol} onChange={choose} />
              <div className="ticker-card__last">
                <strong className="num" data-testid="last">
                  {truncate(last, market.price_decimals)}
                </strong>
                <Change pct={ticker?.change_pct} />
              </div>
            </div>
            <dl className="stats">
              <div>
                <dt>{t('trade.high')}</dt>
                <dd className="num">{truncate(ticker?.high, market.price_decimals)}</dd>
              </div>
              <div>
                <dt>{t('trade.low')}</dt>
                <dd className="num">{truncate(ticker?.low, market.price_decimals)}</dd>
              </div>
              <div>
                <dt>{t('trade.volume', { base: market.base })}</dt>
                <dd className="num">{compact(ticker?.volume)}</dd>
              </div>
            </dl>
          </section>
          <section className="card card--flush" aria-label={t('trade.chart')}>
            <PeriodTabs value={period} onChange={setPeriod} />
            <KlineChart market={market} period={period} height={240} />
          </section>
          <div className="trade-grid">
            <TradeForm
              market={market}
              price={price}
              setPrice={setPrice}
              depth={depth}
              last={dealLast}
              base={holdings[market.base]}
              quote={holdings[market.quote]}
              offline={offline}
              onPlaced={onPlaced}
            />
            <section aria-label={t('trade.orderBook')}>
              <OrderBook market={market} depth={depth} last={last} onPrice={setPrice} failed={feedFailed.depth} onRetry={retryFeed} />
            </section>
          </div>
          <section className="card" aria-labelledby="deals-title">
            <h2 id="deals-title" className="card__title">
              {t('trade.latestTrades')}
            </h2>
            <LatestTrades market={market} trades={trades} loaded={tradesIn} failed={feedFailed.trades} onRetry={retryFeed} />
          </section>
          <MyOrders market={market} reloadKey={placed} offline={offline} />
        </>
      )}
    </Page>
  );
}
