import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { unanswered, type ApiError } from '../../../../api/client';
import { walletApi, type DepositAddress } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { useMoneySubmit } from '../../../../components/client-id';
import { cmp, isAmount, isPositive, stepDecimals, typedDecimal } from '../../../../components/decimal';
import { LoadFailed, Skeleton } from '../../../../components/feedback';
import { Field } from '../../../../components/form';
import { ImageUpload, useUploading } from '../../../../components/image-upload';
import { Page } from '../../../../components/page';
import { useSessionStore } from '../../../../stores/session.store';
import { toast } from '../../../../stores/toast.store';

/** Report a deposit: amount (at least the coin's minimum) and the payment proof image (compressed, uploaded). */
export function ChargePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const currencyId = Number(params.get('currency_id'));
  const chain = params.get('chain') ?? '';
  // null: asked for; 'failed': no answer came (a retry is offered).
  const [info, setInfo] = useState<DepositAddress | 'failed' | null>(null);
  const [amount, setAmount] = useState('');
  const [image, setImage] = useState('');
  const [errors, setErrors] = useState<{ amount?: string; image?: string }>({});
  const { busy, run } = useMoneySubmit('charge');
  // Not sent while the proof is uploading: it would go out with the picture being replaced, or none.
  const { uploading, onUploading } = useUploading();
  const load = useCallback(() => {
    if (!currencyId || !chain) return navigate(PATHS.deposit, { replace: true });
    setInfo(null);
    walletApi.depositAddress(currencyId, chain).then(setInfo, (err: unknown) => {
      if (unanswered(err)) return setInfo('failed');
      // Not logged in: the client has said so and opens the login page.
      if (!useSessionStore.getState().token) return;
      // A refusal (e.g. the chain closed for deposits) says why and goes back to the choice of coin and chain.
      toast((err as ApiError).message);
      navigate(PATHS.deposit, { replace: true });
    });
  }, [currencyId, chain, navigate]);
  useEffect(() => void load(), [load]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!info || info === 'failed') return;
    const found: typeof errors = {};
    if (!isAmount(amount) || !isPositive(amount)) found.amount = t('trade.amountEmpty');
    else if (stepDecimals(amount) > info.decimals) found.amount = t('common.amountDecimals', { decimals: info.decimals });
    else if (cmp(amount, info.min_deposit) < 0) found.amount = t('funding.minDeposit', { min: info.min_deposit, symbol: info.symbol });
    if (!image) found.image = t('funding.proofRequired');
    setErrors(found);
    if (found.amount || found.image) return;
    try {
      const request = { currency_id: currencyId, chain, amount, image_id: image };
      const done = await run(request, (client_id) => walletApi.deposit({ ...request, client_id }));
      if (done) navigate(`${PATHS.depositRedirect}?id=${done.deposit_id}`, { replace: true });
    } catch {
      // shown by the client
    }
  };
  return (
    <Page title={t(titleKey)}>
      {!info ? (
        <Skeleton rows={4} />
      ) : info === 'failed' ? (
        <LoadFailed onRetry={load} />
      ) : (
        <form className="form card" onSubmit={submit} noValidate>
          <p className="muted">
            {info.symbol} · {info.chain}
          </p>
          <p className="address-box">{info.address}</p>
          <Field label={t('funding.amount', { symbol: info.symbol })} inputMode="decimal" autoComplete="off" value={amount} onChange={typedDecimal(setAmount)} error={errors.amount} name="amount" />
          <p className="muted small">{t('funding.minDeposit', { min: info.min_deposit, symbol: info.symbol })}</p>
          <ImageUpload label={t('funding.proof')} value={image} onChange={setImage} error={errors.image} testId="proof-upload" onUploading={onUploading} />
          <button type="submit" className="button button--primary button--block" disabled={busy || uploading} data-testid="charge-submit">
            {t('common.submit')}
          </button>
        </form>
      )}
    </Page>
  );
}
