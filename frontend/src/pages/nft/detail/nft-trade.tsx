import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { nftApi, type NftItem } from '../../../api/nft';
import { PATHS } from '../../../app/paths';
import { useMoneySubmit } from '../../../components/client-id';
import { cmp, typedDecimal } from '../../../components/decimal';
import { Field } from '../../../components/form';
import { truncate } from '../../../components/format';
import { useSessionStore } from '../../../stores/session.store';
import { toast } from '../../../stores/toast.store';
import { isPrice, nftPrice, proceedsOf } from '../nft-parts';

/** Buy (someone else's item on sale, with a confirmation step) or, for the owner, list / re-price / withdraw. */
export function NftTrade({ item, available, onChanged }: { item: NftItem; available: string | null; onChanged: () => void }) {
  const { t } = useTranslation();
  const token = useSessionStore((s) => s.token);
  const { busy, run } = useMoneySubmit('nft-trade');
  const [confirming, setConfirming] = useState(false);
  const [price, setPrice] = useState('');
  const [error, setError] = useState<string>();
  const [working, setWorking] = useState(false);

  if (item.state === 'reserved')
    return (
      <section className="card">
        <p className="nft-note">{t('nft.reservedNote')}</p>
      </section>
    );

  if (!item.owner.is_me) {
    if (!item.on_sale) return null;
    const short = available !== null && cmp(item.price ?? '0', available) > 0;
    const buy = async () => {
      try {
        const request = { item_id: item.id, price: item.price! };
        const done = await run(request, (clientId) => nftApi.buy({ ...request, client_id: clientId }));
        if (!done) return;
        toast(t('nft.bought'));
        setConfirming(false);
        onChanged();
      } catch {
        // The client showed the server's message (e.g. sold a moment ago); show what the item is now.
        setConfirming(false);
        onChanged();
      }
    };
    return (
      <section className="card" aria-labelledby="nft-buy-title">
        <h3 id="nft-buy-title" className="card__title">
          {t('nft.buyTitle')}
        </h3>
        <dl className="rows rows--compact">
          <div>
            <dt>{t('nft.pay')}</dt>
            <dd className="num" data-testid="nft-pay">
              {nftPrice(item.price)} {item.currency}
            </dd>
          </div>
          {token && (
            <div>
              <dt>{t('nft.available')}</dt>
              <dd className="num" data-testid="nft-available">
                {available === null ? '--' : truncate(available, 4)} {item.currency}
              </dd>
            </div>
          )}
        </dl>
        {short && (
          <p className="nft-note" role="alert">
            {t('nft.insufficient')} <Link to={`${PATHS.transfer}?to=coin`}>{t('nft.transferIn')}</Link>
          </p>
        )}
        <div className="nft-actions">
          {!confirming ? (
            <button type="button" className="button button--primary button--block" disabled={short} onClick={() => setConfirming(true)} data-testid="nft-buy">
              {t('nft.buy')}
            </button>
          ) : (
            <>
              <p className="nft-note" data-testid="nft-confirm-text">
                {t('nft.confirmText', { price: nftPrice(item.price), currency: item.currency, name: item.name })}
              </p>
              <button type="button" className="button button--primary button--block" disabled={busy} onClick={buy} data-testid="nft-buy-confirm">
                {t('nft.confirmBuy')}
              </button>
              <button type="button" className="button button--block" disabled={busy} onClick={() => setConfirming(false)}>
                {t('common.cancel')}
              </button>
            </>
          )}
        </div>
        <p className="nft-note">{t('nft.payNote')}</p>
      </section>
    );
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const p = price.trim();
    if (!p) return setError(t('nft.priceEmpty'));
    if (!isPrice(p)) return setError(t('nft.priceInvalid'));
    setWorking(true);
    try {
      await nftApi.listForSale(item.id, p);
      toast(t('nft.listed'));
      setPrice('');
      onChanged();
    } catch {
      // The client showed the server's message.
    } finally {
      setWorking(false);
    }
  };
  const withdraw = async () => {
    setWorking(true);
    try {
      await nftApi.withdraw(item.id);
      toast(t('nft.withdrawn'));
      onChanged();
    } catch {
      // The client showed the server's message.
    } finally {
      setWorking(false);
    }
  };
  const preview = isPrice(price) ? proceedsOf(price.trim(), item.fee_rate) : null;
  return (
    <form className="form card" onSubmit={submit} noValidate aria-labelledby="nft-sell-title">
      <h3 id="nft-sell-title" className="card__title">
        {item.on_sale ? t('nft.changePrice') : t('nft.sellTitle')}
      </h3>
      <Field
        label={t('nft.askPrice', { currency: item.currency })}
        inputMode="decimal"
        autoComplete="off"
        name="price"
        value={price}
        onChange={typedDecimal(setPrice)}
        error={error}
        placeholder={item.on_sale ? nftPrice(item.price) : t('nft.pricePlaceholder')}
        data-testid="nft-sell-price"
      />
      <p className="nft-note" data-testid="nft-proceeds">
        {preview !== null ? t('nft.proceeds', { amount: nftPrice(preview), currency: item.currency }) : t('nft.feeNote')}
      </p>
      <div className="nft-actions">
        <button type="submit" className="button button--primary button--block" disabled={working} data-testid="nft-sell">
          {item.on_sale ? t('nft.updatePrice') : t('nft.listForSale')}
        </button>
        {item.on_sale && (
          <button type="button" className="button button--block" disabled={working} onClick={withdraw} data-testid="nft-withdraw">
            {t('nft.withdraw')}
          </button>
        )}
      </div>
    </form>
  );
}
