import type { DepthData } from '@kestrel/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { tradingApi, type MarketInfo } from '../../../api/trading';
import { PATHS } from '../../../app/paths';
import { useMoneySubmit } from '../../../components/client-id';
import { cmp, div, isAmount, isPositive, mul, percentOf, toStep, typedDecimal } from '../../../components/decimal';
import { Field, Segmented } from '../../../components/form';
import { FundPasswordHint } from '../../../components/fund-password-hint';
import { amountText, truncate } from '../../../components/format';
import type { Holding } from '../../../live/use-balances';
import { toast } from '../../../stores/toast.store';
import { MARKET_BAND_PERCENT, marketProtection } from './market-protection';

type Side = 'buy' | 'sell';
type Kind = 'limit' | 'market';
const PERCENTS = [25, 50, 75, 100];

/**
 * Buy/sell: limit or market, price, quantity (a market buy spends an amount of the quote coin),
 * % of available, the fee preview (taker rate: the most it can cost), the spec's messages. The
 * submit carries a client order id and cannot be sent twice; it is off while the socket is down.
 * A market order is sent with a worst price 5 % past the best opposite price (market-protection.ts).
 */
export function TradeForm({
  market,
  price,
  setPrice,
  depth,
  last,
  base,
  quote,
  offline,
  onPlaced,
}: {
  market: MarketInfo;
  price: string;
  setPrice: (p: string) => void;
  depth: DepthData | null;
  last: string | null;
  base: Holding | undefined;
  quote: Holding | undefined;
  offline: boolean;
  onPlaced: () => void;
}) {
  const { t } = useTranslation();
  const [side, setSide] = useState<Side>('buy');
  const [kind, setKind] = useState<Kind>('limit');
  const [qty, setQty] = useState('');
  const [error, setError] = useState<{ field: 'price' | 'qty'; text: string } | null>(null);
  // Another market: a quantity typed for the one before (its coin, its size) is not this one's.
  useEffect(() => {
    setQty('');
    setError(null);
  }, [market.symbol]);
  const { busy, run, keptFor, holds } = useMoneySubmit('trade');
  const byAmount = side === 'buy' && kind === 'market';
  const qd = market.qty_decimals;
  const pd = market.price_decimals;
  const quoteAvail = quote?.available ?? '0';
  const baseAvail = base?.available ?? '0';

  const fill = (percent: number) => {
    if (side === 'sell') return setQty(toStep(percentOf(baseAvail, percent, qd), market.lot_size));
    if (byAmount) return setQty(percentOf(quoteAvail, percent, quote?.decimals ?? 2));
    if (!isAmount(price) || !isPositive(price)) return setError({ field: 'price', text: t('trade.priceFirst') });
    setQty(toStep(div(percentOf(quoteAvail, percent, 12), price, qd), market.lot_size));
  };
  // What the order spends (buy: quote; sell: base) and receives, and the fee on what it receives.
  const spend = side === 'sell' ? qty : byAmount ? qty : isAmount(price) && isAmount(qty) ? mul(price, qty, 8) : '';
  const notional = side === 'sell' && kind === 'limit' && isAmount(price) && isAmount(qty) ? mul(price, qty, 8) : '';
  const fee = side === 'buy' ? (kind === 'limit' && isAmount(qty) ? mul(qty, market.taker_fee, 8) : '') : notional ? mul(notional, market.taker_fee, 8) : '';
  const feeCoin = side === 'buy' ? market.base : market.quote;
  const request = {
    symbol: market.symbol,
    side,
    type: kind,
    price: kind === 'limit' ? price : undefined,
    quantity: byAmount ? undefined : qty,
    amount: byAmount ? qty : undefined,
  };
  // The worst price follows the book, not the user (a depth of another market, not yet replaced, is
  // no bound for this one). A retry after an unknown fate keeps its client id and sends the worst
  // price first sent with it, even when the book has moved since: the screen shows that one.
  const fresh = kind === 'market' ? marketProtection(side, depth?.symbol === market.symbol ? depth : null, last, market.tick_size) : null;
  const worst = kind === 'market' ? ((keptFor(request) as string | undefined) ?? fresh?.worst) : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (kind === 'limit' && (!isAmount(price) || !isPositive(price))) return setError({ field: 'price', text: t('trade.priceInvalid') });
    if (kind === 'market' && !worst) return setError({ field: 'qty', text: t('trade.marketNoPrice') });
    if (!isAmount(qty) || !isPositive(qty)) return setError({ field: 'qty', text: t(byAmount ? 'trade.amountEmpty' : 'trade.qtyEmpty') });
    if (!byAmount && cmp(qty, market.min_qty) < 0) return setError({ field: 'qty', text: t('trade.qtyMin', { min: market.min_qty }) });
    // Whole lots only: the server would place the quantity truncated to them, not what the total and fee above show.
    if (!byAmount && cmp(toStep(qty, market.lot_size), qty) !== 0)
      return setError({ field: 'qty', text: t('trade.qtyStep', { step: amountText(market.lot_size), base: market.base }) });
    // Not for the retry of an order whose answer never came: it may have been placed (the balance
    // shown has it frozen), and only its retry with the same client id can say (never refused here,
    // which led to placing it again by hand under a new id).
    if (!holds(request)) {
      // Only against a balance that is known (not loaded yet, or its load failed: the server checks).
      if (side === 'buy' && quote && spend && cmp(spend, quoteAvail) > 0) return setError({ field: 'qty', text: t('trade.insufficient') });
      if (side === 'sell' && base && cmp(qty, baseAvail) > 0) return setError({ field: 'qty', text: t('trade.sellableInsufficient') });
    }
    try {
      const order = await run(
        request,
        (id, bound) => tradingApi.place({ ...request, price: request.price ?? bound, client_order_id: id }),
        () => fresh?.worst,
      );
      if (!order) return;
      toast(t('trade.placed'));
      setQty('');
      onPlaced();
    } catch {
      // The client has shown the server's message.
    }
  };
  const unit = byAmount ? market.quote : market.base;
  return (
    <form className={`trade-form trade-form--${side}`} onSubmit={submit} noValidate data-testid="trade-form">
      <Segmented
        label={t('trade.side')}
        value={side}
        onChange={(s) => {
          setSide(s);
          setQty('');
          setError(null);
        }}
        options={[
          { value: 'buy', label: t('trade.buy') },
          { value: 'sell', label: t('trade.sell') },
        ]}
      />
      <Segmented
        label={t('trade.orderType')}
        value={kind}
        onChange={(k) => {
          setKind(k);
          setQty('');
          setError(null);
        }}
        options={[
          { value: 'limit', label: t('trade.limit') },
          { value: 'market', label: t('trade.market') },
        ]}
      />
      {kind === 'limit' ? (
        <Field
          label={t('trade.price', { quote: market.quote })}
          inputMode="decimal"
          autoComplete="off"
          value={price}
          onChange={typedDecimal(setPrice)}
          error={error?.field === 'price' ? error.text : undefined}
          name="price"
        />
      ) : (
        <p className="muted small trade-form__market" data-testid="market-protection">
          {worst
            ? t(side === 'buy' ? 'trade.marketBandBuy' : 'trade.marketBandSell', {
                worst: truncate(worst, pd),
                quote: market.quote,
                percent: MARKET_BAND_PERCENT,
              })
            : t('trade.marketNoPrice')}
        </p>
      )}
      <Field
        label={byAmount ? t('trade.amount', { quote: market.quote }) : t('trade.qty', { base: market.base })}
        inputMode="decimal"
        autoComplete="off"
        value={qty}
        onChange={typedDecimal(setQty)}
        error={error?.field === 'qty' ? error.text : undefined}
        name="quantity"
      />
      <div className="percent-row" role="group" aria-label={t('trade.percentLabel')}>
        {PERCENTS.map((p) => (
          <button key={p} type="button" className="chip" onClick={() => fill(p)}>
            {p}%
          </button>
        ))}
      </div>
      <dl className="rows rows--compact">
        <div>
          <dt>{t('trade.available')}</dt>
          <dd className="num" data-testid="available">
            {side === 'buy'
              ? `${quote ? amountText(quoteAvail, quote.decimals) : '--'} ${market.quote}`
              : `${base ? amountText(baseAvail, base.decimals) : '--'} ${market.base}`}
          </dd>
        </div>
        {side === 'buy' && kind === 'limit' && (
          <div>
            <dt>{t('trade.total')}</dt>
            <dd className="num">{spend ? `${truncate(spend, pd)} ${market.quote}` : '--'}</dd>
          </div>
        )}
        <div>
          <dt>{t('trade.feePreview')}</dt>
          <dd className="num">{fee ? `≤ ${truncate(fee, 8)} ${feeCoin}` : t('trade.feeRate', { rate: truncate(mul(market.taker_fee, '100', 4), 2) })}</dd>
        </div>
      </dl>
      <FundPasswordHint />
      <button type="submit" className={`button button--block button--${side}`} disabled={busy || offline} data-testid="place-order">
        {offline ? t('live.offlineButton') : `${t(side === 'buy' ? 'trade.buy' : 'trade.sell')} ${market.base}`}
        {!offline && <span className="visually-hidden"> ({unit})</span>}
      </button>
      <Link className="small trade-form__link" to={`${PATHS.transfer}?to=coin`}>
        {t('trade.transferLink')}
      </Link>
    </form>
  );
}
