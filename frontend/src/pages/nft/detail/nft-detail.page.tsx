import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { unanswered } from '../../../api/client';
import { nftApi, type NftItem, type NftProvenance } from '../../../api/nft';
import { walletApi } from '../../../api/wallet';
import { mul } from '../../../components/decimal';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Page } from '../../../components/page';
import { useSessionStore } from '../../../stores/session.store';
import { NftArt, nftPrice, OwnerName, StateBadge } from '../nft-parts';
import { NftTrade } from './nft-trade';
import { formatTime } from '../../../components/format';

type Detail = NftItem & { provenance: NftProvenance[] };

/** `nft/detail?id=`: the image, price, metadata, public provenance, and buy (others' items on sale) or list/withdraw (mine). */
export function NftDetailPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const token = useSessionStore((s) => s.token);
  // undefined: asked for; null: no such item; 'failed': no answer (a retry is offered, not "not found").
  const [item, setItem] = useState<Detail | null | 'failed' | undefined>(undefined);
  const [available, setAvailable] = useState<string | null>(null);
  const load = useCallback(() => {
    if (!Number.isSafeInteger(id) || id < 1) return Promise.resolve(setItem(null));
    return nftApi.item(id).then(
      (i) => setItem(i as Detail),
      // A refresh that failed keeps the item shown.
      (err: unknown) => setItem((cur) => (cur && cur !== 'failed' ? cur : unanswered(err) ? 'failed' : null)),
    );
  }, [id]);
  const loadBalance = useCallback(() => {
    if (!token || !item || item === 'failed') return;
    walletApi.currencies().then(
      (list) => setAvailable(list.find((c) => c.symbol === item.currency)?.available ?? '0'),
      () => setAvailable(null),
    );
  }, [token, item]);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(loadBalance, [loadBalance]);

  if (item === undefined)
    return (
      <Page title={t(titleKey)} back>
        <Skeleton rows={4} height={80} />
      </Page>
    );
  if (item === 'failed')
    return (
      <Page title={t(titleKey)} back>
        <LoadFailed
          onRetry={() => {
            setItem(undefined);
            void load();
          }}
        />
      </Page>
    );
  if (item === null)
    return (
      <Page title={t(titleKey)} back>
        <section className="card">
          <Empty text={t('nft.notFound')} />
        </section>
      </Page>
    );
  return (
    <Page title={t(titleKey)} back>
      <section className="card" aria-labelledby="nft-title" data-testid="nft-detail" data-state={item.state}>
        <div className="nft-detail__art">
          <NftArt src={item.image} alt={item.name} />
        </div>
        <div className="nft-tile__meta">
          <span>
            {item.collection} #{item.token_no}
          </span>
          <StateBadge item={item} />
        </div>
        <h2 id="nft-title" className="nft-detail__title">
          {item.name}
        </h2>
        {item.description && <p className="nft-note">{item.description}</p>}
        <dl className="rows rows--compact">
          <div>
            <dt>{t('nft.price')}</dt>
            <dd className="nft-detail__price" data-testid="nft-price">
              {item.on_sale || item.state === 'reserved' ? `${nftPrice(item.price)} ${item.currency}` : t('nft.notForSale')}
            </dd>
          </div>
          <div>
            <dt>{t('nft.owner')}</dt>
            <dd data-testid="nft-owner">
              <OwnerName owner={item.owner} />
            </dd>
          </div>
          {item.last_price !== null && (
            <div>
              <dt>{t('nft.lastPrice')}</dt>
              <dd className="num">
                {nftPrice(item.last_price)} {item.currency}
              </dd>
            </div>
          )}
          <div>
            <dt>{t('nft.feeRate')}</dt>
            <dd className="num">{mul(item.fee_rate, '100', 2).replace(/\.?0+$/, '')}%</dd>
          </div>
        </dl>
        {Object.keys(item.attributes).length > 0 && (
          <ul className="nft-attributes" aria-label={t('nft.attributes')}>
            {Object.entries(item.attributes).map(([k, v]) => (
              <li key={k}>
                <span>{k}</span> {v}
              </li>
            ))}
          </ul>
        )}
      </section>
      <NftTrade item={item} available={available} onChanged={() => void load().then(loadBalance)} />
      <section className="card" aria-labelledby="nft-provenance">
        <h3 id="nft-provenance" className="card__title">
          {t('nft.provenance')}
        </h3>
        <ol className="nft-provenance" data-testid="nft-provenance">
          {item.provenance.map((p, i) => (
            <li key={i} data-event={p.event}>
              <strong>{p.event === 'mint' ? t('nft.minted') : t('nft.sold')}</strong>
              <span className="num">{p.price !== null ? `${nftPrice(p.price)} ${item.currency}` : ''}</span>
              <small>
                {p.event === 'mint'
                  ? t('nft.mintedBy', { to: p.to.type === 'house' ? t('nft.house') : p.to.name })
                  : t('nft.fromTo', {
                      from: p.from?.type === 'house' ? t('nft.house') : (p.from?.name ?? ''),
                      to: p.to.type === 'house' ? t('nft.house') : p.to.name,
                    })}
                {' · '}
                {formatTime(p.at)}
              </small>
            </li>
          ))}
        </ol>
      </section>
    </Page>
  );
}
