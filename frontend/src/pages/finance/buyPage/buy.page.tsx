import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { unanswered } from '../../../api/client';
import { financeApi, type WealthProductInfo, type WealthReport } from '../../../api/finance';
import { PATHS } from '../../../app/paths';
import { useMoneySubmit } from '../../../components/client-id';
import { cmp, isAmount, isPositive, mul, typedDecimal } from '../../../components/decimal';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Field } from '../../../components/form';
import { formatTime, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { toast } from '../../../stores/toast.store';
import { pct, StatusBadge } from '../finance-parts';

/**
 * `finance/buyPage?id=`: the custody amount from the trust account, the estimated interest, the
 * agreement; the spec's prompts in order (amount empty, below the minimum, agreement), then the
 * server's answer (balance, capacity, sale window). One client id per attempt: a retry buys once.
 */
export function BuyPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  // undefined: asked for; null: no such product (or refused); 'failed': no answer (a retry is offered).
  const [product, setProduct] = useState<WealthProductInfo | null | 'failed' | undefined>(undefined);
  const [attempt, setAttempt] = useState(0);
  const [report, setReport] = useState<WealthReport | null>(null);
  const [amount, setAmount] = useState('');
  const [agree, setAgree] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { busy, run } = useMoneySubmit('finance-buy');
  useEffect(() => {
    if (!Number.isInteger(id) || id < 1) return setProduct(null);
    setProduct(undefined);
    financeApi.product(id).then(setProduct, (err: unknown) => setProduct(unanswered(err) ? 'failed' : null));
    financeApi.report().then(setReport, () => undefined);
  }, [id, attempt]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!product || product === 'failed') return;
    if (!amount.trim()) return setError(t('finance.amountEmpty'));
    if (!isAmount(amount) || !isPositive(amount) || cmp(amount, product.min_amount) < 0) return setError(t('finance.belowMin', { min: truncate(product.min_amount, 2) }));
    if (!agree) return setError(t('finance.notAgreed'));
    try {
      const request = { product_id: product.id, amount, agree: '1' };
      const order = await run(request, (clientId) => financeApi.buy({ ...request, client_id: clientId }));
      if (!order) return;
      toast(t('finance.bought'));
      navigate(PATHS.financeOrders);
    } catch (err) {
      setError((err as { message?: string }).message || t('common.error'));
    }
  };

  if (product === undefined)
    return (
      <Page title={t(titleKey)} back>
        <Skeleton rows={4} />
      </Page>
    );
  if (product === 'failed')
    return (
      <Page title={t(titleKey)} back>
        <LoadFailed onRetry={() => setAttempt((n) => n + 1)} />
      </Page>
    );
  if (product === null)
    return (
      <Page title={t(titleKey)} back>
        <Empty text={t('finance.productLoadFailed')} />
      </Page>
    );
  const valid = isAmount(amount) && isPositive(amount);
  const flexible = product.kind === 'flexible';
  const earns = !flexible || (valid && cmp(amount, product.accrual_min) >= 0);
  return (
    <Page title={t(titleKey)} back right={<Link className="button button--small" to={flexible ? PATHS.financeRuleLc : PATHS.financeRule}>{t('finance.rules')}</Link>}>
      <section className="card">
        <div className="wealth-card__head">
          <h2 className="card__title">{product.name || t(`finance.kind.${product.kind}`)}</h2>
          <StatusBadge status={product.status} />
        </div>
        <dl className="rows rows--compact">
          <div>
            <dt>{t('finance.dailyRate')}</dt>
            <dd className="num">{pct(product.daily_rate, 4)}</dd>
          </div>
          {!flexible && (
            <div>
              <dt>{t('finance.totalRate')}</dt>
              <dd className="num">
                {pct(product.total_rate)} · {t('finance.days', { count: product.days })}
              </dd>
            </div>
          )}
          <div>
            <dt>{t('finance.minAmount')}</dt>
            <dd className="num">{truncate(product.min_amount, 2)} USDT</dd>
          </div>
          <div>
            <dt>{t('finance.interestStart')}</dt>
            <dd className="num">{formatTime(product.interest_start)}</dd>
          </div>
          {product.maturity && (
            <div>
              <dt>{t('finance.maturity')}</dt>
              <dd className="num">{formatTime(product.maturity)}</dd>
            </div>
          )}
          <div>
            <dt>{t('finance.penalty')}</dt>
            <dd>
              {product.penalty_mode === 'ratio'
                ? t('finance.penaltyRatio', { ratio: truncate(mul(product.penalty_ratio, '100', 6), 2) })
                : product.penalty_mode === 'tip'
                  ? t('finance.penaltyTip', { multiple: truncate(product.penalty_multiple, 1) })
                  : t('finance.penaltyNone')}
            </dd>
          </div>
        </dl>
        {flexible && <p className="muted small">{t('finance.flexibleNote', { min: truncate(product.accrual_min, 0) })}</p>}
      </section>
      <form className="card" onSubmit={submit} noValidate>
        <Field
          label={t('finance.amount')}
          inputMode="decimal"
          autoComplete="off"
          name="amount"
          value={amount}
          onChange={typedDecimal(setAmount)}
          placeholder={t('finance.amountPlaceholder', { min: truncate(product.min_amount, 2) })}
          addon={
            <button type="button" className="button" onClick={() => report && setAmount(report.trust_available)}>
              {t('finance.all')}
            </button>
          }
        />
        <dl className="rows rows--compact">
          <div>
            <dt>{t('finance.available')}</dt>
            <dd className="num" data-testid="trust-available">
              {truncate(report?.trust_available, 4)} USDT · <Link to={`${PATHS.transfer}?to=trust`}>{t('finance.transferIn')}</Link>
            </dd>
          </div>
          <div>
            <dt>{t('finance.estDaily')}</dt>
            <dd className="num" data-testid="est-daily">
              {valid && earns ? `${truncate(mul(amount, product.daily_rate, 8), 4)} USDT` : '--'}
            </dd>
          </div>
          {!flexible && (
            <div>
              <dt>{t('finance.estTotal')}</dt>
              <dd className="num" data-testid="est-total">
                {valid ? `${truncate(mul(amount, product.total_rate, 8), 4)} USDT` : '--'}
              </dd>
            </div>
          )}
        </dl>
        <div className="field">
          <label className="check">
            <input type="checkbox" name="agree" checked={agree} onChange={(e) => setAgree(e.target.checked)} data-testid="wealth-agree" />
            <span>{t('finance.agree')}</span>
          </label>
          <details className="agreement">
            <summary>{t('finance.agreement')}</summary>
            <ol className="wealth-rules">
              {(['rule1', 'rule2', 'rule3', 'rule4', 'rule5'] as const).map((k) => (
                <li key={k}>{t(`finance.${k}`)}</li>
              ))}
            </ol>
          </details>
        </div>
        {error && (
          <p className="field__error" role="alert" data-testid="buy-error">
            {error}
          </p>
        )}
        <button type="submit" className="button button--primary button--block" disabled={busy} data-testid="wealth-confirm">
          {t('finance.confirmBuy')}
        </button>
      </form>
    </Page>
  );
}
