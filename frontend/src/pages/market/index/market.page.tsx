import type { TickerData } from '@kestrel/contracts';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { tradingApi, type MarketInfo } from '../../../api/trading';
import { PATHS } from '../../../app/paths';
import { Change } from '../../../components/change';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { compact, direction, priceDecimals, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { useMarketStore } from '../../../stores/market.store';
import { storage } from '../../../stores/storage';
import { useFavorites } from '../favorites.store';
import { Sparkline } from '../sparkline';
import '../market.css';

type SortKey = 'name' | 'price' | 'change' | 'volume';
type Tab = 'all' | 'favorites';

let infoCache: MarketInfo[] | null = null;

/** Tick precision per symbol (`currencyMatch/all`, loaded once). */
function usePriceDecimals(): Map<string, number> {
  const [list, setList] = useState<MarketInfo[]>(infoCache ?? []);
  useEffect(() => {
    if (infoCache) return;
    tradingApi.markets().then(
      (l) => {
        infoCache = l;
        setList(l);
      },
      () => undefined,
    );
  }, []);
  return useMemo(() => new Map(list.map((m) => [m.symbol, m.price_decimals])), [list]);
}

const num = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? Number.NEGATIVE_INFINITY : Number(v));

function compare(key: SortKey): (a: TickerData, b: TickerData) => number {
  switch (key) {
    case 'name':
      return (a, b) => a.symbol.localeCompare(b.symbol);
    case 'price':
      return (a, b) => num(a.last) - num(b.last);
    case 'change':
      return (a, b) => num(a.change_pct) - num(b.change_pct);
    case 'volume':
      return (a, b) => num(a.quote_volume) - num(b.quote_volume);
  }
}

/** The Markets tab: every market by quote currency, searchable, sortable, with favourites; live over `tickers`. */
export function MarketPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const tickers = useMarketStore((s) => s.tickers);
  const loaded = useMarketStore((s) => s.loaded);
  const status = useMarketStore((s) => s.status);
  const follow = useMarketStore((s) => s.follow);
  const failed = useMarketStore((s) => s.failed);
  const load = useMarketStore((s) => s.load);
  useEffect(() => follow(), [follow]);
  const decimals = usePriceDecimals();
  const { symbols: favorites, toggle } = useFavorites();
  const [tab, setTab] = useState<Tab>('all');
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'volume', desc: true });

  const groups = useMemo(() => {
    const q = query.trim().toUpperCase().replace(/[\s_-]/g, '/');
    const fav = new Set(favorites);
    const cmp = compare(sort.key);
    const rows = tickers
      .filter((m) => (tab === 'all' || fav.has(m.symbol)) && (!q || m.symbol.includes(q) || m.base.includes(q)))
      .sort((a, b) => (sort.desc ? -cmp(a, b) : cmp(a, b)) || a.symbol.localeCompare(b.symbol));
    const byQuote = new Map<string, TickerData[]>();
    for (const m of rows) byQuote.set(m.quote, [...(byQuote.get(m.quote) ?? []), m]);
    return [...byQuote.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [tickers, favorites, tab, query, sort]);

  const sortBy = (key: SortKey) => setSort((s) => (s.key === key ? { key, desc: !s.desc } : { key, desc: key !== 'name' }));
  const header = (key: SortKey, label: string) => {
    const active = sort.key === key;
    return (
      <button
        type="button"
        className={`markets__sort${active ? ' is-active' : ''}`}
        onClick={() => sortBy(key)}
        aria-pressed={active}
        data-testid={`sort-${key}`}
        aria-label={active ? t(sort.desc ? 'markets.sortedDesc' : 'markets.sortedAsc', { column: label }) : t('markets.sortBy', { column: label })}
      >
        {label}
        <span aria-hidden="true">{active ? (sort.desc ? ' ↓' : ' ↑') : ''}</span>
      </button>
    );
  };

  return (
    <Page title={t(titleKey)} back={false}>
      <section className="card markets" aria-labelledby="markets-heading">
        <div className="card__head">
          <h2 id="markets-heading">{t('markets.heading')}</h2>
          <span className={`live live--${status}`}>{status === 'offline' ? t('home.reconnecting') : t('home.live')}</span>
        </div>
        <div className="markets__tabs" role="tablist" aria-label={t('markets.listLabel')}>
          {(['all', 'favorites'] as const).map((k) => (
            <button key={k} type="button" role="tab" aria-selected={tab === k} className={`markets__tab${tab === k ? ' is-active' : ''}`} onClick={() => setTab(k)} data-testid={`tab-${k}`}>
              {t(`markets.${k}`)}
              {k === 'favorites' && favorites.length > 0 ? ` (${favorites.length})` : ''}
            </button>
          ))}
        </div>
        <label className="markets__search">
          <span className="visually-hidden">{t('markets.search')}</span>
          <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder={t('markets.searchPlaceholder')} autoComplete="off" data-testid="market-search" />
        </label>
        <div className="markets__head">
          <span>
            {header('name', t('markets.name'))} / {header('volume', t('markets.volume'))}
          </span>
          <span>{header('price', t('markets.price'))}</span>
          <span>{header('change', t('markets.change'))}</span>
        </div>
        {!loaded ? (
          failed ? (
            <LoadFailed onRetry={load} />
          ) : (
            <Skeleton rows={4} height={56} />
          )
        ) : groups.length === 0 ? (
          <Empty text={tab === 'favorites' && !query ? t('markets.noFavorites') : t('markets.noMatch')} />
        ) : (
          groups.map(([quote, rows]) => (
            <section key={quote} aria-labelledby={`quote-${quote}`} className="markets__group">
              <h3 id={`quote-${quote}`} className="markets__quote">
                {t('markets.quoteGroup', { quote })}
              </h3>
              <ul className="market-list" data-testid="markets-list">
                {rows.map((m) => {
                  const fav = favorites.includes(m.symbol);
                  return (
                    <li key={m.symbol} className="markets__item" data-symbol={m.symbol}>
                      <button
                        type="button"
                        className={`markets__star${fav ? ' is-on' : ''}`}
                        aria-pressed={fav}
                        aria-label={t(fav ? 'markets.unfavorite' : 'markets.favorite', { symbol: m.symbol })}
                        onClick={() => void toggle(m.symbol)}
                        data-testid="favorite"
                      >
                        <span aria-hidden="true">{fav ? '★' : '☆'}</span>
                      </button>
                      <Link className="markets__row" to={`${PATHS.trade}?symbol=${encodeURIComponent(m.symbol)}`} onClick={() => storage.set('symbol', m.symbol)} data-testid="market-row">
                        <span>
                          <strong>{m.base}</strong>
                          <span className="muted">/{m.quote}</span>
                          <small className="muted block" data-testid="volume">
                            {t('markets.vol', { volume: compact(m.quote_volume) })}
                          </small>
                        </span>
                        <Sparkline symbol={m.symbol} open={m.open_24h} last={m.last} dir={direction(m.change_pct)} />
                        <span className="num" data-testid="last-price">
                          {truncate(m.last, decimals.get(m.symbol) ?? priceDecimals(m.last))}
                        </span>
                        <span data-testid="change">
                          <Change pct={m.change_pct} />
                        </span>
                      </Link>
                    </li>
                  );
                })}
              </ul>
            </section>
          ))
        )}
      </section>
    </Page>
  );
}
