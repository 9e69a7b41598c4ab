import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { financeApi, type Redemption, type WealthOrder } from '../../../api/finance';
import { useMoneySubmit } from '../../../components/client-id';
import { mul } from '../../../components/decimal';
import { Skeleton } from '../../../components/feedback';
import { truncate } from '../../../components/format';
import { toast } from '../../../stores/toast.store';

/** Early redemption: the exact penalty and refund from the server (`preview=1`) before the user confirms. */
export function RedeemPopup({ order, onClose, onDone }: { order: WealthOrder; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const [preview, setPreview] = useState<Redemption | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { busy, run } = useMoneySubmit('finance-redeem');
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => {
    financeApi.preview(order.order_id).then(setPreview, (e: { message?: string }) => setError(e.message || t('common.error')));
    dialog.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [order.order_id, onClose, t]);
  const confirm = async () => {
    setError(null);
    try {
      const done = await run(order.order_id, () => financeApi.redeem(order.order_id));
      if (!done) return;
      toast(t('finance.redeemed'));
      onDone();
    } catch (e) {
      setError((e as { message?: string }).message || t('common.error'));
    }
  };
  return (
    <div className="modal" role="presentation" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal__sheet" role="dialog" aria-modal="true" aria-labelledby="redeem-title" tabIndex={-1} ref={dialog} data-testid="redeem-popup">
        <h2 id="redeem-title" className="card__title">
          {t('finance.redeemTitle')} · {order.name}
        </h2>
        {preview === null && !error ? (
          <Skeleton rows={3} />
        ) : (
          preview && (
            <dl className="rows rows--compact">
              <div>
                <dt>{t('finance.custody')}</dt>
                <dd className="num">{truncate(preview.amount, 8)} USDT</dd>
              </div>
              <div>
                <dt>{t('finance.remainingDays')}</dt>
                <dd className="num">{preview.remaining_days}</dd>
              </div>
              <div>
                <dt>{t('finance.penalty')}</dt>
                <dd className="wealth-penalty num" data-testid="redeem-penalty">
                  {truncate(preview.penalty, 8)} USDT
                </dd>
              </div>
              <div>
                <dt>{t('finance.refund')}</dt>
                <dd className="num" data-testid="redeem-refund">
                  {truncate(preview.refund, 8)} USDT
                </dd>
              </div>
            </dl>
          )
        )}
        <p className="muted small">
          {preview?.penalty_mode === 'ratio'
            ? t('finance.penaltyRatio', { ratio: truncate(mul(preview.penalty_ratio, '100', 6), 2) })
            : preview?.penalty_mode === 'tip'
              ? t('finance.penaltyTip', { multiple: truncate(preview.penalty_multiple, 1) })
              : t('finance.penaltyNone')}{' '}
          {t('finance.redeemNote')}
        </p>
        {error && (
          <p className="field__error" role="alert" data-testid="redeem-error">
            {error}
          </p>
        )}
        <div className="wealth-actions">
          <button type="button" className="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" className="button button--primary" disabled={busy || !preview} onClick={confirm} data-testid="redeem-confirm">
            {t('finance.confirmRedeem')}
          </button>
        </div>
      </div>
    </div>
  );
}

