import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { NFT_ORDERS_PAGE, nftApi, type NftOrderType } from '../../../api/nft';
import { PATHS } from '../../../app/paths';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { PullRefresh } from '../../../components/pull-refresh';
import { usePaged } from '../../../components/use-paged';
import { NftArt, nftPrice } from '../nft-parts';
import { formatTime } from '../../../components/format';
import { FilterTabs } from '../../../components/form';

type Tab = 'all' | NftOrderType;
const TABS: Tab[] = ['all', 'purchase', 'sale', 'listing'];

/** `nft/order`: my purchases and sales (all, or one kind) and my listings, newest first. */
export function NftOrdersPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab = (TABS as string[]).includes(params.get('type') ?? '') ? (params.get('type') as Tab) : 'all';
  const list = usePaged((page: number) => nftApi.orders(tab === 'all' ? undefined : tab, page), NFT_ORDERS_PAGE, { idOf: (o) => `${o.kind}-${o.id}` });
  const { restart, reload } = list;
  useEffect(() => restart(), [tab, restart]);
  return (
    <Page title={t(titleKey)} back>
      <PullRefresh onRefresh={reload}>
        <FilterTabs
          label={t('nft.orderTabs.label')}
          value={tab}
          options={TABS.map((k) => ({ value: k, label: t(`nft.orderTabs.${k}`) }))}
          onChange={(k) => setParams(k === 'all' ? {} : { type: k }, { replace: true })}
          testId={(k) => `nft-orders-tab-${k}`}
        />
        <section className="card">
          <PagedList list={list}>
            {(orders) => (
              <ul className="nft-orders" data-testid="nft-orders">
                {orders.map((o) => (
                  <li key={`${o.kind}-${o.id}`} className="nft-order" data-testid="nft-order" data-kind={o.kind} data-status={o.status}>
                    <Link to={`${PATHS.nftDetail}?id=${o.item_id}`} aria-label={`${o.name} #${o.token_no}`}>
                      <NftArt src={o.image} alt="" />
                    </Link>
                    <div>
                      <div className="nft-order__head">
                        <strong>
                          {o.name} #{o.token_no}
                        </strong>
                        <span className="nft-badge">{t(`nft.orderStatus.${o.status}`)}</span>
                      </div>
                      <dl className="rows rows--compact">
                        <div>
                          <dt>{t(`nft.kind.${o.kind}`)}</dt>
                          <dd className="num" data-testid="nft-order-amount">
                            {nftPrice(o.kind === 'listing' ? o.price : o.amount)} {o.currency ?? 'USDT'}
                          </dd>
                        </div>
                        {o.kind === 'sale' && (
                          <div>
                            <dt>{t('nft.feePaid')}</dt>
                            <dd className="num">
                              {nftPrice(o.fee)} {o.currency}
                            </dd>
                          </div>
                        )}
                        <div>
                          <dt>{t('nft.time')}</dt>
                          <dd className="num small">{formatTime(o.created_at)}</dd>
                        </div>
                      </dl>
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </PagedList>
        </section>
      </PullRefresh>
    </Page>
  );
}
