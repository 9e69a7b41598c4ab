import type { TickerData } from '@kestrel/contracts';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../../app/paths';
import { Change } from '../../../components/change';
import { LoadFailed, Skeleton } from '../../../components/feedback';
import { priceDecimals, truncate } from '../../../components/format';
import { useMarketStore } from '../../../stores/market.store';
import { storage } from '../../../stores/storage';
import '../../market/market.css';

const TOP = 3;
const abs = (v: string | null | undefined) => Math.abs(Number(v ?? 0)) || 0;

function Row({ m }: { m: TickerData }) {
  return (
    <li>
      <Link className="home-markets__row" to={`${PATHS.trade}?symbol=${encodeURIComponent(m.symbol)}`} onClick={() => storage.set('symbol', m.symbol)}>
        <span>
          <strong>{m.base}</strong>
          <span className="muted">/{m.quote}</span>
        </span>
        <span className="num" data-testid="top-price">
          {truncate(m.last, priceDecimals(m.last))}
        </span>
        <Change pct={m.change_pct} />
      </Link>
    </li>
  );
}

/** Above the fold on the home page, for visitors too: the busiest markets and the biggest 24 h moves, live over `tickers`. */
export function HomeMarkets() {
  const { t } = useTranslation();
  const tickers = useMarketStore((s) => s.tickers);
  const loaded = useMarketStore((s) => s.loaded);
  const status = useMarketStore((s) => s.status);
  const follow = useMarketStore((s) => s.follow);
  const failed = useMarketStore((s) => s.failed);
  const load = useMarketStore((s) => s.load);
  useEffect(() => follow(), [follow]);
  const top = useMemo(() => [...tickers].sort((a, b) => Number(b.quote_volume) - Number(a.quote_volume) || a.symbol.localeCompare(b.symbol)).slice(0, TOP), [tickers]);
  const movers = useMemo(() => [...tickers].sort((a, b) => abs(b.change_pct) - abs(a.change_pct) || a.symbol.localeCompare(b.symbol)).slice(0, TOP), [tickers]);

  return (
    <section className="card home-markets" aria-labelledby="top-markets-title" data-testid="home-markets">
      <div className="card__head">
        <h2 id="top-markets-title">{t('home.topMarkets')}</h2>
        <span className={`live live--${status}`}>{status === 'offline' ? t('home.reconnecting') : t('home.live')}</span>
      </div>
      {!loaded ? (
        failed ? (
          <LoadFailed onRetry={load} />
        ) : (
          <Skeleton rows={3} height={40} />
        )
      ) : (
        <>
          <ul className="home-markets__list" data-testid="top-markets">
            {top.map((m) => (
              <Row key={m.symbol} m={m} />
            ))}
          </ul>
          <h3 className="home-markets__sub" id="top-movers-title">
            {t('home.topMovers')}
          </h3>
          <ul className="home-markets__list" aria-labelledby="top-movers-title" data-testid="top-movers">
            {movers.map((m) => (
              <Row key={m.symbol} m={m} />
            ))}
          </ul>
        </>
      )}
      <Link className="home-markets__all" to={PATHS.market} data-testid="all-markets">
        {t('home.allMarkets')} ›
      </Link>
    </section>
  );
}
