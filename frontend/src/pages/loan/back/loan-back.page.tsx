import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { unanswered } from '../../../api/client';
import { loanApi, type LoanOrder, type LoanRepayment, type RepayAddress } from '../../../api/loan';
import { walletApi } from '../../../api/wallet';
import { PATHS } from '../../../app/paths';
import { useMoneySubmit } from '../../../components/client-id';
import { copyText } from '../../../components/copy';
import { cmp, isAmount, isPositive, stepDecimals, sub, typedDecimal } from '../../../components/decimal';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Field, Segmented } from '../../../components/form';
import { formatTime, truncate } from '../../../components/format';
import { ImageUpload } from '../../../components/image-upload';
import { Page } from '../../../components/page';
import { toast } from '../../../stores/toast.store';
import { LoanBadge } from '../loan-parts';

type Mode = 'balance' | 'transfer';

/**
 * `loan/back?id=`: the remaining amount and two ways to repay: from the trade account at once
 * (`borrow/order/back`), or by a transfer to the repayment address reported with its image
 * (`borrow/back/apply`, reviewed by an operator). The spec's prompts in order: image required,
 * amount required, not above the remaining amount (what is already in review counts).
 */
export function LoanBackPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  // undefined: asked for; null: no such loan; 'failed': no answer (a retry is offered, not "not found").
  const [data, setData] = useState<{ order: LoanOrder; addresses: RepayAddress[]; records: LoanRepayment[] } | null | 'failed' | undefined>(undefined);
  const [available, setAvailable] = useState<string | null>(null);
  const [mode, setMode] = useState<Mode>('balance');
  const [amount, setAmount] = useState('');
  const [image, setImage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { busy, run } = useMoneySubmit('loan-back');

  const load = useCallback(async () => {
    if (!/^\d+$/.test(id)) return setData(null);
    try {
      const d = await loanApi.detail(id);
      setData(d);
      const w = await walletApi.detail('coin', d.order.currency_id).catch(() => null);
      setAvailable(w?.available ?? null);
    } catch (err) {
      // A refresh that failed keeps the loan shown.
      setData((cur) => (cur && cur !== 'failed' ? cur : unanswered(err) ? 'failed' : null));
    }
  }, [id]);
  useEffect(() => void load(), [load]);

  if (data === undefined)
    return (
      <Page title={t(titleKey)} back>
        <Skeleton rows={5} />
      </Page>
    );
  if (data === 'failed')
    return (
      <Page title={t(titleKey)} back>
        <LoadFailed
          onRetry={() => {
            setData(undefined);
            void load();
          }}
        />
      </Page>
    );
  if (data === null)
    return (
      <Page title={t(titleKey)} back>
        <Empty text={t('loan.notFound')} />
      </Page>
    );
  const o = data.order;
  const D = o.decimals;
  const free = sub(o.remaining, o.in_review, D);
  const owed = o.status === 'approved' || o.status === 'repaying' || o.status === 'overdue';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (mode === 'transfer' && !image) return setError(t('loan.imageRequired'));
    if (!amount.trim()) return setError(t('loan.repayAmountEmpty'));
    if (!isAmount(amount) || !isPositive(amount)) return setError(t('loan.amountInvalid'));
    if (stepDecimals(amount) > D) return setError(t('common.amountDecimals', { decimals: D }));
    if (cmp(amount, free) > 0) return setError(t('loan.exceedsRemaining', { remaining: truncate(free, D) }));
    try {
      const request = { order_id: o.id, amount: amount.trim() };
      const done = await run({ ...request, mode, image }, (clientId) =>
        mode === 'balance' ? loanApi.repay({ ...request, client_id: clientId }) : loanApi.repayByTransfer({ ...request, image_id: image, client_id: clientId }),
      );
      if (!done) return;
      toast(mode === 'balance' ? t('loan.repaid') : t('loan.submitted'));
      setAmount('');
      setImage('');
      await load();
    } catch (err) {
      setError((err as { message?: string }).message || t('common.error'));
    }
  };

  return (
    <Page title={t(titleKey)} back right={<Link className="button button--small" to={`${PATHS.loanBackRec}?id=${o.id}`}>{t('loan.repayments')}</Link>}>
      <section className="card" data-testid="loan-back-summary">
        <div className="loan-card__head">
          <h2 className="card__title num">
            {truncate(o.amount, D)} {o.symbol}
          </h2>
          <LoanBadge status={o.status} />
        </div>
        <dl className="rows rows--compact">
          <div>
            <dt>{t('loan.repayAmount')}</dt>
            <dd className="num">{truncate(o.repay_amount, D)}</dd>
          </div>
          <div>
            <dt>{t('loan.remaining')}</dt>
            <dd className="num" data-testid="loan-back-remaining">
              {truncate(o.remaining, D)} {o.symbol}
            </dd>
          </div>
          {cmp(o.in_review, '0') > 0 && (
            <div>
              <dt>{t('loan.inReview')}</dt>
              <dd className="num">{truncate(o.in_review, D)}</dd>
            </div>
          )}
          <div>
            <dt>{t('loan.dueAt')}</dt>
            <dd className="num">{o.due_at ? formatTime(o.due_at) : '--'}</dd>
          </div>
        </dl>
      </section>
      {owed ? (
        <form className="card form" onSubmit={submit} noValidate>
          <Segmented
            label={t('loan.repayBy')}
            value={mode}
            options={[
              { value: 'balance', label: t('loan.byBalance') },
              { value: 'transfer', label: t('loan.byTransfer') },
            ]}
            onChange={(m) => (setMode(m), setError(null))}
          />
          {mode === 'transfer' && (
            <div className="field">
              <span className="field__label">{t('loan.repayAddress')}</span>
              {data.addresses.length === 0 ? (
                <p className="muted small">{t('loan.noAddress')}</p>
              ) : (
                data.addresses.map((a) => (
                  <p key={a.chain} className="loan-address small">
                    <strong>{a.chain}</strong> <span className="num">{a.address}</span>{' '}
                    <button type="button" className="button" onClick={() => void copyText(a.address).then((ok) => ok && toast(t('loan.copied')))}>
                      {t('loan.copy')}
                    </button>
                  </p>
                ))
              )}
            </div>
          )}
          <Field
            label={t('loan.repayAmountLabel')}
            inputMode="decimal"
            autoComplete="off"
            name="amount"
            value={amount}
            onChange={typedDecimal(setAmount)}
            placeholder={t('loan.repayPlaceholder', { max: truncate(free, D) })}
            addon={
              <button type="button" className="button" onClick={() => setAmount(free)}>
                {t('loan.all')}
              </button>
            }
          />
          {mode === 'balance' ? (
            <p className="muted small" data-testid="loan-available">
              {t('loan.available')}:{' '}
              <span className="num">
                {truncate(available, D)} {o.symbol}
              </span>
            </p>
          ) : (
            <ImageUpload label={t('loan.transferImage')} value={image} onChange={setImage} testId="loan-transfer-image" />
          )}
          {error && (
            <p className="field__error" role="alert" data-testid="loan-back-error">
              {error}
            </p>
          )}
          <button type="submit" className="button button--primary button--block" disabled={busy} data-testid="loan-back-submit">
            {mode === 'balance' ? t('loan.repayNow') : t('loan.submitProof')}
          </button>
        </form>
      ) : (
        <p className="card muted">{t('loan.nothingOwed')}</p>
      )}
    </Page>
  );
}
