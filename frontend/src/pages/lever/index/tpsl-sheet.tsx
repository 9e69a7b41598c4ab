import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { leverApi, type Position } from '../../../api/derivatives';
import { cmp, isAmount, isPositive, typedDecimal } from '../../../components/decimal';
import { Field } from '../../../components/form';
import { truncate } from '../../../components/format';
import { toast } from '../../../stores/toast.store';

/**
 * Edit take profit and stop loss of an open or pending position (`lever/tpsl`). The side rule is
 * checked here against the mark price the screen shows (holding) or the limit price (pending); the
 * server checks it again at its own latest tick and its message is shown under the fields.
 */
export function TpSlSheet({ position, mark, pd, onClose }: { position: Position; mark: string | null; pd: number; onClose: () => void }) {
  const { t } = useTranslation();
  // The stored levels as they are: shortened to the price's decimals, saving one field would move the other.
  const [tp, setTp] = useState(position.take_profit);
  const [sl, setSl] = useState(position.stop_loss);
  const [error, setError] = useState<{ field: 'take_profit' | 'stop_loss' | 'form'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => {
    dialog.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  const long = position.side === 'long';
  const reference = position.status === 'pending' ? position.target_price : mark;
  const check = () => {
    if (!isAmount(tp) || !isPositive(tp)) return { field: 'take_profit' as const, text: t('lever.tpRequired') };
    if (!isAmount(sl) || !isPositive(sl)) return { field: 'stop_loss' as const, text: t('lever.slRequired') };
    if (reference) {
      if (long ? cmp(tp, reference) <= 0 : cmp(tp, reference) >= 0) return { field: 'take_profit' as const, text: t(long ? 'lever.tpAbove' : 'lever.tpBelow', { price: reference }) };
      if (long ? cmp(sl, reference) >= 0 : cmp(sl, reference) <= 0) return { field: 'stop_loss' as const, text: t(long ? 'lever.slBelow' : 'lever.slAbove', { price: reference }) };
    }
    return null;
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    const bad = check();
    setError(bad);
    if (bad) return;
    setBusy(true);
    try {
      await leverApi.tpsl(position.id, tp.trim(), sl.trim());
      toast(t('positionsLive.saved'));
      onClose();
    } catch (err) {
      setError({ field: 'form', text: (err as { message?: string }).message || t('common.error') });
    } finally {
      setBusy(false);
    }
  };
  // Typing in a field clears its message (and the server's).
  const decimal = (set: (v: string) => void, field: 'take_profit' | 'stop_loss') =>
    typedDecimal((v) => {
      set(v);
      setError((e) => (e && (e.field === field || e.field === 'form') ? null : e));
    });
  return (
    <div className="modal" role="presentation" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal__sheet" role="dialog" aria-modal="true" aria-labelledby="tpsl-title" tabIndex={-1} ref={dialog} data-testid="tpsl-sheet">
        <h2 id="tpsl-title" className="card__title">
          {t('positionsLive.tpslTitle')} · {position.symbol}
        </h2>
        <form onSubmit={save} noValidate>
          {reference && <p className="muted small num">{t('positionsLive.markNow', { price: truncate(reference, pd) })}</p>}
          <Field label={t('lever.takeProfit')} inputMode="decimal" autoComplete="off" value={tp} onChange={decimal(setTp, 'take_profit')} error={error?.field === 'take_profit' ? error.text : undefined} name="take_profit" />
          <Field label={t('lever.stopLoss')} inputMode="decimal" autoComplete="off" value={sl} onChange={decimal(setSl, 'stop_loss')} error={error?.field === 'stop_loss' ? error.text : undefined} name="stop_loss" />
          <p className="muted small">{t(long ? 'lever.tpslHintLong' : 'lever.tpslHintShort')}</p>
          {error?.field === 'form' && (
            <p className="field__error" role="alert" data-testid="tpsl-error">
              {error.text}
            </p>
          )}
          <div style={{ display: 'flex', gap: 8, marginTop: 8 }}>
            <button type="button" className="button" style={{ flex: 1 }} onClick={onClose}>
              {t('common.cancel')}
            </button>
            <button type="submit" className="button button--primary" style={{ flex: 1 }} disabled={busy} data-testid="tpsl-save">
              {t('positionsLive.save')}
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
