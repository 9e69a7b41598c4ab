import type { TickerData } from '@kestrel/contracts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../../app/paths';
import { Change } from '../../../components/change';
import { useMoneySubmit } from '../../../components/client-id';
import { truncate } from '../../../components/format';
import { Icon } from '../../../components/icons';
import { Page } from '../../../components/page';
import { useLive } from '../../../live/live.store';
import { StaleBadge } from '../../../live/stale-badge';
import { useMarketStore } from '../../../stores/market.store';
import { KlineChart } from '../../trade/kline/kline-chart';
import { MarketSwitcher } from '../../trade/market-switcher';
import { MarketsPending } from '../../trade/markets-pending';
import { useMarkets } from '../../trade/use-markets';
import { BuyPopup } from './buy-popup';

/** Options (`option/detail`): market switcher, live price and chart, up/down opening the buy popup. */
export function OptionPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { markets, market, choose, state: marketsState, retry: retryMarkets } = useMarkets();
  const { status, offline } = useLive();
  const follow = useMarketStore((s) => s.follow);
  const ticker = useMarketStore((s) => s.tickers.find((m) => m.symbol === market?.symbol)) as TickerData | undefined;
  useEffect(() => follow(), [follow]);
  const [buying, setBuying] = useState<'up' | 'down' | null>(null);
  const closeBuy = useCallback(() => setBuying(null), []);
  // Here, not in the popup: the client id of a request left unanswered survives closing the popup.
  const submitter = useMoneySubmit('option');
  return (
    <Page
      title={t(titleKey)}
      right={
        <Link className="icon-button" to={PATHS.optionDetails} aria-label={t('option.awaiting')} data-testid="option-orders-link">
          <span aria-hidden="true">☰</span>
        </Link>
      }
    >
      <StaleBadge status={status} />
      {!market ? (
        <MarketsPending state={marketsState} retry={retryMarkets} />
      ) : (
        <>
          <section className="card ticker-card" aria-label={t('option.summary')}>
            <div className="ticker-card__top">
              <MarketSwitcher markets={markets} value={market.symbol} onChange={choose} />
              <div className="ticker-card__last">
                <strong className="num" data-testid="option-price">
                  {truncate(ticker?.last, market.price_decimals)}
                </strong>
                <Change pct={ticker?.change_pct} />
              </div>
            </div>
          </section>
          <section className="card card--flush" aria-label={t('trade.chart')}>
            <KlineChart market={market} period="1min" height={200} />
          </section>
          <div className="option-actions">
            <button type="button" className="button button--buy" onClick={() => setBuying('up')} disabled={offline} data-testid="option-up">
              <span aria-hidden="true">▲ </span>
              {t('option.buyUp')}
            </button>
            <button type="button" className="button button--sell" onClick={() => setBuying('down')} disabled={offline} data-testid="option-down">
              <span aria-hidden="true">▼ </span>
              {t('option.buyDown')}
            </button>
          </div>
          <nav className="card" aria-label={t('option.orders')}>
            <ul className="list">
              {(
                [
                  [PATHS.optionDetails, 'option.awaiting'],
                  [PATHS.optionDetails2, 'option.history'],
                ] as const
              ).map(([to, label]) => (
                <li key={to}>
                  <Link className="list__item" to={to}>
                    <span>{t(label)}</span>
                    <Icon name="chevron" size={18} />
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          {buying && <BuyPopup symbol={market.symbol} direction={buying} price={ticker?.last ?? null} onClose={closeBuy} submitter={submitter} />}
        </>
      )}
    </Page>
  );
}
