import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../../api/client';
import { NFT_ITEMS_PAGE, nftApi, type NftCollection } from '../../../api/nft';
import { PATHS } from '../../../app/paths';
import { Empty, Skeleton } from '../../../components/feedback';
import { FilterTabs } from '../../../components/form';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { PullRefresh } from '../../../components/pull-refresh';
import { usePaged } from '../../../components/use-paged';
import { NftArt, nftPrice, OwnerName, StateBadge } from '../nft-parts';

type Filter = 'all' | 'sale' | 'mine';
/** The server's refusal for a collection that does not exist (docs/api.md "NFT market"). */
const NFT_COLLECTION_NOT_FOUND = 2800;
const FILTERS: Filter[] = ['all', 'sale', 'mine'];

/** `nft/index`: the collections and their items as a grid of images; filters on sale / mine (mine needs the login). */
export function NftPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const filter = (FILTERS as string[]).includes(params.get('filter') ?? '') ? (params.get('filter') as Filter) : 'all';
  const collection = Number(params.get('collection')) || undefined;
  const set = (next: { filter?: Filter; collection?: number }) => {
    const f = next.filter ?? filter;
    const c = 'collection' in next ? next.collection : collection;
    setParams({ ...(f !== 'all' ? { filter: f } : {}), ...(c ? { collection: String(c) } : {}) }, { replace: true });
  };
  const [collections, setCollections] = useState<NftCollection[]>([]);
  const list = usePaged(
    (page: number) =>
      nftApi.list({ collection_id: collection, on_sale: filter === 'sale', mine: filter === 'mine', page }).catch((err: unknown) => {
        // A collection that does not exist (a hand-made link): the market's every collection instead.
        if (err instanceof ApiError && err.code === NFT_COLLECTION_NOT_FOUND) set({ collection: undefined });
        throw err;
      }),
    NFT_ITEMS_PAGE,
    { idOf: (i) => i.id, onPage: (p) => setCollections(p.collections) },
  );
  const { restart, reload } = list;
  useEffect(() => restart(), [collection, filter, restart]);
  const current = collections.find((c) => c.id === collection);
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
      <PullRefresh onRefresh={reload}>
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
          {collections.map((c) => (
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
        <PagedList
          list={list}
          skeleton={<Skeleton rows={2} height={200} />}
          empty={
            <section className="card">
              <Empty text={filter === 'mine' ? t('nft.noneMine') : undefined} />
            </section>
          }
        >
          {(items) => (
            <ul className="nft-grid" data-testid="nft-grid">
              {items.map((i) => (
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
        </PagedList>
      </PullRefresh>
    </Page>
  );
}
