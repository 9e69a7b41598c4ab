import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { nftApi, type NftList } from '../../../api/nft';
import { PATHS } from '../../../app/paths';
import { Empty, Skeleton } from '../../../components/feedback';
import { FilterTabs } from '../../../components/form';
import { Page } from '../../../components/page';
import { PullRefresh } from '../../../components/pull-refresh';
import { NftArt, nftPrice, OwnerName, StateBadge } from '../nft-parts';

type Filter = 'all' | 'sale' | 'mine';
const FILTERS: Filter[] = ['all', 'sale', 'mine'];

/** `nft/index`: the collections and their items as a grid of images; filters on sale / mine (mine needs the login). */
export function NftPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const filter = (FILTERS as string[]).includes(params.get('filter') ?? '') ? (params.get('filter') as Filter) : 'all';
  const collection = Number(params.get('collection')) || undefined;
  const [data, setData] = useState<NftList | null>(null);
  const load = useCallback(
    () =>
      nftApi
        .list({ collection_id: collection, on_sale: filter === 'sale', mine: filter === 'mine' })
        .then(setData, () => setData((d) => d ?? { collections: [], items: [], total: 0, page: 1, limit: 50, item: null })),
    [collection, filter],
  );
  useEffect(() => {
    setData(null);
    void load();
  }, [load]);
  const set = (next: { filter?: Filter; collection?: number }) => {
    const f = next.filter ?? filter;
    const c = 'collection' in next ? next.collection : collection;
    setParams({ ...(f !== 'all' ? { filter: f } : {}), ...(c ? { collection: String(c) } : {}) }, { replace: true });
  };
  const current = data?.collections.find((c) => c.id === collection);
  return (
    <Page
      title={t(titleKey)}
      back
      right={
        <Link className="button button--small" to={PATHS.nftOrder} data-testid="nft-orders-link">
          {t('nft.myOrders')}
        </Link>
      }
    >
      <PullRefresh onRefresh={load}>
        <FilterTabs
          label={t('nft.filter')}
          value={filter}
          options={FILTERS.map((f) => ({ value: f, label: t(`nft.filters.${f}`) }))}
          onChange={(f) => set({ filter: f })}
          testId={(f) => `nft-filter-${f}`}
        />
        <div className="nft-collections" role="group" aria-label={t('nft.collections')}>
          <button type="button" className={`chip${!collection ? ' is-active' : ''}`} aria-pressed={!collection} onClick={() => set({ collection: undefined })}>
            {t('nft.allCollections')}
          </button>
          {data?.collections.map((c) => (
            <button
              key={c.id}
              type="button"
              className={`chip${collection === c.id ? ' is-active' : ''}`}
              aria-pressed={collection === c.id}
              onClick={() => set({ collection: c.id })}
            >
              {c.name}
            </button>
          ))}
        </div>
        {current && (
          <section className="card nft-collection-card" data-testid="nft-collection">
            <strong>{current.name}</strong>
            {current.description && <p>{current.description}</p>}
            <p>
              {t('nft.collectionStats', { items: current.items, onSale: current.on_sale })}
              {current.floor_price !== null && ` · ${t('nft.floor', { price: nftPrice(current.floor_price), currency: current.currency })}`}
            </p>
          </section>
        )}
        {!data ? (
          <Skeleton rows={2} height={200} />
        ) : data.items.length === 0 ? (
          <section className="card">
            <Empty text={filter === 'mine' ? t('nft.noneMine') : undefined} />
          </section>
        ) : (
          <ul className="nft-grid" data-testid="nft-grid">
            {data.items.map((i) => (
              <li key={i.id} className="nft-tile" data-testid="nft-item" data-id={i.id}>
                <Link to={`${PATHS.nftDetail}?id=${i.id}`} aria-label={`${i.name} #${i.token_no}`}>
                  <NftArt src={i.image} alt="" />
                  <div className="nft-tile__body">
                    <span className="nft-tile__name">{i.name}</span>
                    <div className="nft-tile__meta">
                      <span>
                        {i.collection} #{i.token_no}
                      </span>
                    </div>
                    <div className="nft-tile__meta">
                      {i.on_sale ? (
                        <span className="nft-price" data-testid="nft-item-price">
                          {nftPrice(i.price)} {i.currency}
                        </span>
                      ) : (
                        <StateBadge item={i} />
                      )}
                    </div>
                    <div className="nft-tile__meta">
                      <span className="small">
                        {t('nft.owner')}: <OwnerName owner={i.owner} />
                      </span>
                    </div>
                  </div>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </PullRefresh>
    </Page>
  );
}
