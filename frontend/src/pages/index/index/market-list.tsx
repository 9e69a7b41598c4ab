import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../../app/paths';
import { Change } from '../../../components/change';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { compact, priceDecimals, truncate } from '../../../components/format';
import { useMarketStore } from '../../../stores/market.store';

/** Markets with live tickers: first the HTTP snapshot, then the socket's `tickers` topic. */
export function MarketList() {
  const { t } = useTranslation();
  const tickers = useMarketStore((s) => s.tickers);
  const loaded = useMarketStore((s) => s.loaded);
  const status = useMarketStore((s) => s.status);
  const follow = useMarketStore((s) => s.follow);
  const failed = useMarketStore((s) => s.failed);
  const load = useMarketStore((s) => s.load);
  useEffect(() => follow(), [follow]);

  return (
    <section className="card" aria-labelledby="markets-title">
      <div className="card__head">
        <h2 id="markets-title">{t('home.markets')}</h2>
        <span className={`live live--${status}`}>{status === 'offline' ? t('home.reconnecting') : t('home.live')}</span>
      </div>
      <div className="market-row market-row--head" aria-hidden="true">
        <span>{t('home.pair')}</span>
        <span>{t('home.lastPrice')}</span>
        <span>{t('home.change')}</span>
      </div>
      {!loaded ? (
        failed ? (
          <LoadFailed onRetry={load} />
        ) : (
          <Skeleton rows={3} height={48} />
        )
      ) : tickers.length === 0 ? (
        <Empty />
      ) : (
        <ul className="market-list" data-testid="market-list">
          {tickers.map((m) => (
            <li key={m.symbol}>
              <Link className="market-row" to={`${PATHS.kline}?symbol=${encodeURIComponent(m.symbol)}`}>
                <span>
                  <strong>{m.base}</strong>
                  <span className="muted">/{m.quote}</span>
                  <small className="muted block">{t('home.volume', { volume: compact(m.volume) })}</small>
                </span>
                <span className="num" data-testid="last-price">
                  {truncate(m.last, priceDecimals(m.last))}
                </span>
                <Change pct={m.change_pct} />
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
