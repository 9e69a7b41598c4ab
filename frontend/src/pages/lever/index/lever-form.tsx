import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { leverApi, type LeverDeal } from '../../../api/derivatives';
import type { MarketInfo } from '../../../api/trading';
import { PATHS } from '../../../app/paths';
import { FundPasswordHint } from '../../../components/fund-password-hint';
import { useMoneySubmit } from '../../../components/client-id';
import { add, cmp, div, isAmount, isPositive, mul, typedDecimal } from '../../../components/decimal';
import { Field, Segmented } from '../../../components/form';
import { truncate } from '../../../components/format';
import { toast } from '../../../stores/toast.store';

type Side = 'long' | 'short';
type Kind = 'market' | 'limit';
type FieldName = 'price' | 'lots' | 'take_profit' | 'stop_loss';

/** margin = lots × lot_value / multiple; fee = lots × lot_value × fee_rate (decimal strings, truncated to 8). */
export function preview(lots: string, deal: Pick<LeverDeal, 'lot_value' | 'fee_rate'>, multiple: number) {
  if (!/^\d+$/.test(lots) || !isPositive(lots)) return { margin: '', fee: '' };
  const notional = mul(lots, deal.lot_value, 8);
  return { margin: div(notional, String(multiple), 8), fee: mul(notional, deal.fee_rate, 8) };
}

/**
 * Open a contract: long/short, market/limit (+ price), whole lots within the market's range,
 * a multiple offered by `lever/deal`, take profit and stop loss (required, on the right side of
 * the price), the margin and fee preview. The submit carries a client id.
 */
export function LeverForm({ market, deal, offline, onPlaced }: { market: MarketInfo; deal: LeverDeal; offline: boolean; onPlaced: () => void }) {
  const { t } = useTranslation();
  const [side, setSide] = useState<Side>('long');
  const [kind, setKind] = useState<Kind>('market');
  const [price, setPrice] = useState('');
  const [lots, setLots] = useState('');
  const [multiple, setMultiple] = useState<number>(deal.multiples[0] ?? 1);
  const [tp, setTp] = useState('');
  const [sl, setSl] = useState('');
  const [error, setError] = useState<{ field: FieldName; text: string } | null>(null);
  const { busy, run, holds } = useMoneySubmit('lever');
  useEffect(() => {
    if (!deal.multiples.includes(multiple)) setMultiple(deal.multiples[0] ?? 1);
  }, [deal.multiples, multiple]);
  const pd = market.price_decimals;
  const { margin, fee } = preview(lots, deal, multiple);
  const reference = kind === 'limit' ? price : (deal.mark_price ?? '');

  const request = {
    symbol: market.symbol,
    side,
    type: kind,
    lots: lots.trim(),
    multiple: String(multiple),
    price: kind === 'limit' ? price : undefined,
    take_profit: tp,
    stop_loss: sl,
  };

  const check = (): { field: FieldName; text: string } | null => {
    if (kind === 'limit' && (!isAmount(price) || !isPositive(price))) return { field: 'price', text: t('lever.priceInvalid') };
    if (!lots.trim()) return { field: 'lots', text: t('lever.lotsRequired') };
    if (!/^\d+$/.test(lots.trim()) || Number(lots) < 1) return { field: 'lots', text: t('lever.lotsWhole') };
    if (Number(lots) < deal.min_lots || Number(lots) > deal.max_lots) return { field: 'lots', text: t('lever.lotsRange', { min: deal.min_lots, max: deal.max_lots }) };
    if (!isAmount(tp) || !isPositive(tp)) return { field: 'take_profit', text: t('lever.tpRequired') };
    if (!isAmount(sl) || !isPositive(sl)) return { field: 'stop_loss', text: t('lever.slRequired') };
    // Not against the moment for the retry of an order whose answer never came: it may have been
    // opened (its margin taken, the mark moved since), and only its retry with the same client id
    // can say (refused here, the user changed a field and opened a second position).
    if (holds(request)) return null;
    if (reference) {
      const tpOk = side === 'long' ? cmp(tp, reference) > 0 : cmp(tp, reference) < 0;
      const slOk = side === 'long' ? cmp(sl, reference) < 0 : cmp(sl, reference) > 0;
      if (!tpOk) return { field: 'take_profit', text: t(side === 'long' ? 'lever.tpAbove' : 'lever.tpBelow', { price: reference }) };
      if (!slOk) return { field: 'stop_loss', text: t(side === 'long' ? 'lever.slBelow' : 'lever.slAbove', { price: reference }) };
    }
    // The server takes the margin and the fee (lever/submit): both must be available.
    if (margin && cmp(add(margin, fee || '0', 8), deal.available) > 0) return { field: 'lots', text: t('lever.insufficient') };
    return null;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problem = check();
    setError(problem);
    if (problem) return;
    try {
      const placed = await run(request, (id) => leverApi.submit({ ...request, client_id: id }));
      if (!placed) return;
      toast(t('lever.placed'));
      setLots('');
      onPlaced();
    } catch {
      // The client has shown the server's message.
    }
  };
  const errorOf = (f: FieldName) => (error?.field === f ? error.text : undefined);
  return (
    <form className="card trade-form" onSubmit={submit} noValidate data-testid="lever-form">
      <Segmented
        label={t('lever.direction')}
        value={side}
        onChange={(s) => {
          setSide(s);
          setError(null);
        }}
        options={[
          { value: 'long', label: `▲ ${t('lever.long')}` },
          { value: 'short', label: `▼ ${t('lever.short')}` },
        ]}
      />
      <Segmented
        label={t('trade.orderType')}
        value={kind}
        onChange={(k) => {
          setKind(k);
          setError(null);
          if (k === 'limit' && !price && deal.mark_price) setPrice(truncate(deal.mark_price, pd, false));
        }}
        options={[
          { value: 'market', label: t('trade.market') },
          { value: 'limit', label: t('trade.limit') },
        ]}
      />
      {kind === 'limit' ? (
        <Field label={t('trade.price', { quote: market.quote })} inputMode="decimal" autoComplete="off" value={price} onChange={typedDecimal(setPrice)} error={errorOf('price')} name="price" />
      ) : (
        <p className="muted small trade-form__market">{t('lever.atMarket')}</p>
      )}
      <Field
        label={t('lever.lots', { value: deal.lot_value })}
        inputMode="numeric"
        autoComplete="off"
        value={lots}
        onChange={setLots}
        error={errorOf('lots')}
        name="lots"
        placeholder={`${deal.min_lots}–${deal.max_lots}`}
      />
      <div className="field">
        <span className="field__label" id="lever-multiple">
          {t('lever.multiple')}
        </span>
        <div className="chips" role="radiogroup" aria-labelledby="lever-multiple">
          {deal.multiples.map((m) => (
            <button key={m} type="button" role="radio" aria-checked={m === multiple} className={`chip${m === multiple ? ' is-active' : ''}`} onClick={() => setMultiple(m)}>
              {m}×
            </button>
          ))}
        </div>
      </div>
      <Field label={t('lever.takeProfit')} inputMode="decimal" autoComplete="off" value={tp} onChange={typedDecimal(setTp)} error={errorOf('take_profit')} name="take_profit" />
      <Field label={t('lever.stopLoss')} inputMode="decimal" autoComplete="off" value={sl} onChange={typedDecimal(setSl)} error={errorOf('stop_loss')} name="stop_loss" />
      <p className="muted small">{t(side === 'long' ? 'lever.tpslHintLong' : 'lever.tpslHintShort')}</p>
      <dl className="rows rows--compact">
        <div>
          <dt>{t('trade.available')}</dt>
          <dd className="num" data-testid="lever-available">
            {truncate(deal.available, 4)} USDT
          </dd>
        </div>
        <div>
          <dt>{t('lever.margin')}</dt>
          <dd className="num" data-testid="margin-preview">
            {margin ? `${truncate(margin, 8)} USDT` : '--'}
          </dd>
        </div>
        <div>
          <dt>{t('trade.feePreview')}</dt>
          <dd className="num" data-testid="fee-preview">
            {fee ? `${truncate(fee, 8)} USDT` : t('lever.feeRate', { rate: truncate(mul(deal.fee_rate, '100', 4), 2) })}
          </dd>
        </div>
      </dl>
      <FundPasswordHint />
      <button type="submit" className={`button button--block button--${side === 'long' ? 'buy' : 'sell'}`} disabled={busy || offline} data-testid="lever-submit">
        {offline ? t('live.offlineButton') : t(side === 'long' ? 'lever.openLong' : 'lever.openShort')}
      </button>
      <Link className="small trade-form__link" to={`${PATHS.transfer}?to=lever`}>
        {t('lever.transferLink')}
      </Link>
    </form>
  );
}
