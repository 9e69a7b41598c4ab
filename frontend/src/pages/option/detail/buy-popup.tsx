import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { optionApi, type OptionPeriod, type Payable } from '../../../api/derivatives';
import { PATHS } from '../../../app/paths';
import type { useMoneySubmit } from '../../../components/client-id';
import { add, cmp, isAmount, isPositive, mul, typedDecimal } from '../../../components/decimal';
import { Field } from '../../../components/form';
import { FundPasswordHint } from '../../../components/fund-password-hint';
import { LoadFailed } from '../../../components/feedback';
import { amountText, truncate } from '../../../components/format';
import { useLiveStore } from '../../../live/live.store';
import { toast } from '../../../stores/toast.store';

/**
 * The buy popup: the delivery time first (`microtrade/seconds`), then the quantity in the period's
 * range, the payable balance (`microtrade/payable_currencies`) and the possible win. A quantity
 * outside the range, or more than the balance with the fee, is said before anything is sent; the
 * server's refusals are its messages, shown in the popup; 2402 (not verified) asks "go and verify?".
 */
export function BuyPopup({
  symbol,
  direction,
  price,
  onClose,
  submitter,
}: {
  symbol: string;
  direction: 'up' | 'down';
  price: string | null;
  onClose: () => void;
  /** The page's money submit: it outlives the popup, so a retry after closing and reopening it keeps the unanswered request's client id. */
  submitter: ReturnType<typeof useMoneySubmit>;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  // null: asked for; 'failed': not answered (the popup offers to try again, as nothing can be bought without one).
  const [periods, setPeriods] = useState<OptionPeriod[] | 'failed' | null>(null);
  const [payable, setPayable] = useState<Payable | null>(null);
  const [period, setPeriod] = useState<OptionPeriod | null>(null);
  const [qty, setQty] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { busy, run, holds } = submitter;
  const balanceVersion = useLiveStore((st) => st.balanceVersion);
  // A resync (the socket came back without the pushes it missed): a payout may have come meanwhile.
  const resync = useLiveStore((st) => st.resync);
  const dialog = useRef<HTMLDivElement>(null);
  // The newest read's answer only: an older one answering after it would show the balance before.
  const reads = useRef(0);
  const readPayable = useCallback(() => {
    const mine = ++reads.current;
    return optionApi.payable().then(
      (l) => mine === reads.current && setPayable(l[0] ?? null),
      () => undefined,
    );
  }, []);
  const load = useCallback(() => {
    setPeriods(null);
    optionApi.seconds().then(setPeriods, () => setPeriods('failed'));
  }, []);
  // The balance now, read again on each balance push (a payout while the popup is open).
  useEffect(() => void readPayable(), [readPayable, balanceVersion, resync]);
  // Once per opening (a re-render of the page, on every price push, must not refetch or take the focus from the quantity).
  useEffect(() => {
    load();
    dialog.current?.focus();
  }, [load]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!period) return setError(t('option.chooseTime'));
    if (!isAmount(qty) || !isPositive(qty)) return setError(t('option.qtyEmpty'));
    const request = { period_id: period.id, symbol, direction, quantity: qty };
    // The server's checks, said before sending (it checks again): the period's range, then the stake
    // and its fee against the option account. Not for the retry of an unanswered purchase: if that
    // one went through, the balance shown has paid for it, and only the server's answer tells.
    if (!holds(request)) {
      if (cmp(qty, period.min_qty) < 0 || cmp(qty, period.max_qty) > 0)
        return setError(t('option.qtyRange', { min: amountText(period.min_qty), max: amountText(period.max_qty) }));
      const needed = add(qty, mul(qty, period.fee_rate, 8), 8);
      if (payable && cmp(needed, payable.available) > 0) return setError(t('option.notEnough', { needed: amountText(needed), symbol: payable.symbol }));
    }
    try {
      const order = await run(request, (id) => optionApi.submit({ ...request, client_id: id }));
      if (!order) return;
      toast(t('option.bought'));
      onClose();
      navigate(PATHS.optionDetails);
    } catch (err) {
      const { code, message } = err as { code?: number; message: string };
      if (code === 2402) {
        if (window.confirm(message || t('option.verifyConfirm'))) navigate(PATHS.verification);
        return;
      }
      setError(message || t('common.error'));
    }
  };
  const win = period && isAmount(qty) ? mul(qty, period.profit_ratio, 8) : '';
  const dirLabel = t(direction === 'up' ? 'option.up' : 'option.down');
  return (
    <div className="modal" role="presentation" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal__sheet" role="dialog" aria-modal="true" aria-labelledby="buy-title" tabIndex={-1} ref={dialog} data-testid="buy-popup">
        <h2 id="buy-title" className="card__title">
          <span aria-hidden="true">{direction === 'up' ? '▲ ' : '▼ '}</span>
          {t('option.buyTitle', { symbol, direction: dirLabel })}
        </h2>
        <p className="muted small">
          {t('lever.markPrice')}: <span className="num">{price ?? '--'}</span>
        </p>
        <form onSubmit={submit} noValidate>
          <fieldset className="option-periods">
            <legend>{t('option.deliveryTime')}</legend>
            {periods === null ? (
              <p className="muted small">{t('common.loading')}</p>
            ) : periods === 'failed' ? (
              <LoadFailed onRetry={load} />
            ) : (
              <div className="chips" role="radiogroup" aria-label={t('option.deliveryTime')}>
                {periods.map((p) => (
                  <button
                    key={p.id}
                    type="button"
                    role="radio"
                    aria-checked={period?.id === p.id}
                    className={`chip option-period${period?.id === p.id ? ' is-active' : ''}`}
                    onClick={() => {
                      setPeriod(p);
                      setError(null);
                    }}
                    data-testid={`period-${p.seconds}`}
                  >
                    {t('option.seconds', { seconds: p.seconds })} · {amountText(mul(p.profit_ratio, '100', 2))}%
                  </button>
                ))}
              </div>
            )}
          </fieldset>
          <Field
            label={t('option.quantity')}
            inputMode="decimal"
            autoComplete="off"
            value={qty}
            onChange={typedDecimal(setQty)}
            name="quantity"
            disabled={!period}
            placeholder={period ? t('option.range', { min: amountText(period.min_qty), max: amountText(period.max_qty) }) : t('option.chooseTime')}
          />
          <dl className="rows rows--compact">
            <div>
              <dt>{t('option.payable')}</dt>
              <dd className="num" data-testid="payable">
                {payable ? `${truncate(payable.available, 4)} ${payable.symbol}` : '--'}
              </dd>
            </div>
            <div>
              <dt>{t('option.possibleWin')}</dt>
              <dd className="num">{win ? `${truncate(win, 4)} USDT` : '--'}</dd>
            </div>
          </dl>
          {error && (
            <p className="field__error" role="alert" data-testid="buy-error">
              {error}
            </p>
          )}
          <FundPasswordHint />
          <Link className="small trade-form__link" to={`${PATHS.transfer}?to=option`}>
            {t('option.transferLink')}
          </Link>
          <div className="option-actions">
            <button type="button" className="button" onClick={onClose}>
              {t('common.cancel')}
            </button>
            <button type="submit" className={`button button--${direction === 'up' ? 'buy' : 'sell'}`} disabled={busy} data-testid="buy-confirm">
              {t('option.confirmBuy', { direction: dirLabel })}
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
