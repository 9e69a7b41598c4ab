import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { loanApi, type LoanPreview, type LoanProduct } from '../../../api/loan';
import { PATHS } from '../../../app/paths';
import { useMoneySubmit } from '../../../components/client-id';
import { cmp, isAmount, isPositive, stepDecimals, typedDecimal } from '../../../components/decimal';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Field, FilterTabs } from '../../../components/form';
import { amountText, truncate } from '../../../components/format';
import { ImageUpload } from '../../../components/image-upload';
import { Page } from '../../../components/page';
import { toast } from '../../../stores/toast.store';
import { pct } from '../loan-parts';

type Photos = { front_image: string; back_image: string; passport_image: string };
const PHOTOS: Array<keyof Photos> = ['front_image', 'back_image', 'passport_image'];

/**
 * `loan/index`: the product's terms (lender, daily rate, range, cycles, one-time repayment at
 * maturity), the repayment preview computed by the server for the amount and cycle typed, and the
 * application with the three ID photos. The spec's prompt (basic verification first) is the
 * server's answer, with a link to verify.
 */
export function LoanPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  // undefined: asked for; 'failed': no answer (a retry is offered, not "no products").
  const [products, setProducts] = useState<LoanProduct[] | 'failed' | undefined>(undefined);
  const [productId, setProductId] = useState<number | null>(null);
  const [amount, setAmount] = useState('');
  const [days, setDays] = useState<number | null>(null);
  const [photos, setPhotos] = useState<Photos>({ front_image: '', back_image: '', passport_image: '' });
  const [preview, setPreview] = useState<LoanPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [needsVerify, setNeedsVerify] = useState(false);
  const { busy, run } = useMoneySubmit('loan');

  const loadProducts = useCallback(() => {
    setProducts(undefined);
    loanApi.products().then(
      (r) => {
        setProducts(r.items);
        if (r.items[0]) {
          setProductId(r.items[0].id);
          setDays(r.items[0].cycles[0] ?? null);
        }
      },
      () => setProducts('failed'),
    );
  }, []);
  useEffect(loadProducts, [loadProducts]);
  const product = (products !== 'failed' && products?.find((p) => p.id === productId)) || null;
  const inRange = !!product && isAmount(amount) && isPositive(amount) && cmp(amount, product.min_amount) >= 0 && cmp(amount, product.max_amount) <= 0;
  // More decimals than the coin has: refused by the server, so said here (and no preview asked for).
  const tooPrecise = !!product && inRange && stepDecimals(amount) > product.decimals;

  useEffect(() => {
    setPreview(null);
    if (!product || !inRange || tooPrecise || days === null) return;
    // A preview answered after the amount or term changed again is not this one's: dropped.
    let current = true;
    const timer = setTimeout(() => {
      loanApi.preview(product.id, amount.trim(), days).then(
        (r) => current && setPreview(r.preview),
        () => current && setPreview(null),
      );
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [product, amount, days, inRange, tooPrecise]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setNeedsVerify(false);
    if (!product || days === null) return;
    if (!amount.trim()) return setError(t('loan.amountEmpty'));
    if (!inRange)
      return setError(
        t('loan.amountRange', {
          min: amountText(product.min_amount, product.decimals),
          max: amountText(product.max_amount, product.decimals),
          coin: product.symbol,
        }),
      );
    if (tooPrecise) return setError(t('common.amountDecimals', { decimals: product.decimals }));
    if (PHOTOS.some((k) => !photos[k])) return setError(t('loan.photosRequired'));
    try {
      const request = { product_id: product.id, amount: amount.trim(), days, ...photos };
      const order = await run(request, (clientId) => loanApi.apply({ ...request, client_id: clientId }));
      if (!order) return;
      toast(t('loan.applied'));
      navigate(`${PATHS.loanOrder}?status=approving`);
    } catch (err) {
      const e2 = err as { message?: string; code?: number };
      if (e2.code === 2700) setNeedsVerify(true);
      setError(e2.message || t('common.error'));
    }
  };

  const right = <Link className="button button--small" to={PATHS.loanOrder}>{t('loan.myLoans')}</Link>;
  if (products === undefined)
    return (
      <Page title={t(titleKey)} back right={right}>
        <Skeleton rows={5} />
      </Page>
    );
  if (products === 'failed')
    return (
      <Page title={t(titleKey)} back right={right}>
        <LoadFailed onRetry={loadProducts} />
      </Page>
    );
  if (!product)
    return (
      <Page title={t(titleKey)} back right={right}>
        <Empty text={t('loan.noProducts')} />
      </Page>
    );
  return (
    <Page title={t(titleKey)} back right={right}>
      {products.length > 1 && (
        <FilterTabs
          label={t('loan.product')}
          value={product.id}
          options={products.map((p) => ({ value: p.id, label: p.name }))}
          onChange={(id) => (setProductId(id), setDays(products.find((p) => p.id === id)?.cycles[0] ?? null))}
        />
      )}
      <section className="card" data-testid="loan-terms">
        <h2 className="card__title">{product.name}</h2>
        <dl className="rows rows--compact">
          <div>
            <dt>{t('loan.lender')}</dt>
            <dd>{product.lender}</dd>
          </div>
          <div>
            <dt>{t('loan.dailyRate')}</dt>
            <dd className="num">{pct(product.daily_rate)}</dd>
          </div>
          <div>
            <dt>{t('loan.range')}</dt>
            <dd className="num">
              {amountText(product.min_amount, product.decimals)} – {amountText(product.max_amount, product.decimals)} {product.symbol}
            </dd>
          </div>
          <div>
            <dt>{t('loan.method')}</dt>
            <dd>{t('loan.methodMaturity')}</dd>
          </div>
        </dl>
      </section>
      <form className="card form" onSubmit={submit} noValidate>
        <Field
          label={t('loan.expectedAmount')}
          inputMode="decimal"
          autoComplete="off"
          name="amount"
          value={amount}
          onChange={typedDecimal(setAmount)}
          placeholder={t('loan.amountPlaceholder', {
            min: amountText(product.min_amount, product.decimals),
            max: amountText(product.max_amount, product.decimals),
          })}
          addon={<span className="muted">{product.symbol}</span>}
        />
        <div className="field">
          <span className="field__label">{t('loan.cycle')}</span>
          <div className="segmented loan-cycles" role="group" aria-label={t('loan.cycle')}>
            {product.cycles.map((c) => (
              <button
                key={c}
                type="button"
                className={c === days ? 'is-active' : ''}
                aria-pressed={c === days}
                onClick={() => setDays(c)}
                data-testid={`loan-cycle-${c}`}
              >
                {t('loan.days', { count: c })}
              </button>
            ))}
          </div>
        </div>
        <dl className="rows rows--compact" data-testid="loan-preview">
          <div>
            <dt>{t('loan.interest')}</dt>
            <dd className="num" data-testid="loan-preview-interest">
              {preview ? `${truncate(preview.interest, product.decimals)} ${product.symbol}` : '--'}
            </dd>
          </div>
          <div>
            <dt>{t('loan.repayAmount')}</dt>
            <dd className="num" data-testid="loan-preview-repay">
              {preview ? `${truncate(preview.repay_amount, product.decimals)} ${product.symbol}` : '--'}
            </dd>
          </div>
        </dl>
        <p className="muted small">{t('loan.previewNote')}</p>
        {PHOTOS.map((k) => (
          <ImageUpload key={k} label={t(`loan.photo.${k}`)} value={photos[k]} onChange={(id) => setPhotos((p) => ({ ...p, [k]: id }))} testId={`loan-${k}`} />
        ))}
        {error && (
          <p className="field__error" role="alert" data-testid="loan-error">
            {error} {needsVerify && <Link to={PATHS.verification}>{t('loan.goVerify')}</Link>}
          </p>
        )}
        <button type="submit" className="button button--primary button--block" disabled={busy} data-testid="loan-apply">
          {t('loan.apply')}
        </button>
      </form>
    </Page>
  );
}
