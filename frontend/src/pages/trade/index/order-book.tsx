import type { DepthData, TradeData } from '@kestrel/contracts';
import { memo, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import type { MarketInfo } from '../../../api/trading';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { add, cmp, div, mul, sub } from '../../../components/decimal';
import { formatTime, truncate } from '../../../components/format';

const LEVELS = 8;

/** Each level with the running total from the best price outwards (decimal strings, no floats). */
function cumulate(levels: Array<[string, string]>): Array<[string, string, string]> {
  let total = '0';
  return levels.map(([price, qty]) => {
    total = add(total, qty, 18);
    return [price, qty, total];
  });
}

/**
 * The book as shown: the best `levels` of each side, best first, each `[price, qty, depth%]` where
 * depth% is the cumulative quantity over the deeper side's total; the spread (best ask − best bid,
 * truncated to `pd` decimals) and its % of the best ask (2 decimals, truncated); null without both sides.
 */
export function bookView(depth: DepthData, levels: number, pd: number) {
  const asks = cumulate(depth.asks.slice(0, levels));
  const bids = cumulate(depth.bids.slice(0, levels));
  const askTotal = asks.length ? asks[asks.length - 1][2] : '0';
  const bidTotal = bids.length ? bids[bids.length - 1][2] : '0';
  const deepest = cmp(askTotal, bidTotal) >= 0 ? askTotal : bidTotal;
  const pct = ([price, qty, total]: [string, string, string]): [string, string, string] => [price, qty, div(mul(total, '100', 18), deepest, 2)];
  const spread = asks.length && bids.length ? sub(asks[0][0], bids[0][0], pd) : null;
  const spreadPct = spread !== null && cmp(asks[0][0], '0') > 0 ? div(mul(spread, '100', 18), asks[0][0], 2) : null;
  return { asks: asks.map(pct), bids: bids.map(pct), spread, spreadPct };
}

/**
 * Asks (lowest nearest the middle) over bids, each row with a bar behind it sized by the cumulative
 * quantity up to that level (relative to the deeper side's total shown); the spread (best ask − best
 * bid, and in % of the best ask) beside the last price; a tap on a price fills the order form's price.
 */
export const OrderBook = memo(function OrderBook({
  market,
  depth,
  last,
  onPrice,
  failed = false,
  onRetry,
}: {
  market: MarketInfo;
  depth: DepthData | null;
  last: string | null;
  onPrice: (price: string) => void;
  /** The book did not load (and the socket has not given it): a retry, not placeholder rows for ever. */
  failed?: boolean;
  onRetry?: () => void;
}) {
  const { t } = useTranslation();
  if (!depth) return failed && onRetry ? <LoadFailed onRetry={onRetry} /> : <Skeleton rows={6} height={22} />;
  const pd = market.price_decimals;
  const { asks, bids, spread, spreadPct } = bookView(depth, LEVELS, pd);
  const row =
    (side: 'ask' | 'bid') =>
    ([price, qty, pct]: [string, string, string]) => (
      <li key={`${side}${price}`}>
        <button
          type="button"
          className={`book__row book__row--${side}`}
          onClick={() => onPrice(price)}
          style={{ '--depth': `${pct}%` } as CSSProperties}
          data-price={price}
        >
          <span className="num">{truncate(price, market.price_decimals)}</span>
          <span className="num">{truncate(qty, market.qty_decimals)}</span>
        </button>
      </li>
    );
  return (
    <div className="book" data-testid="order-book">
      <div className="book__head" aria-hidden="true">
        <span>{t('trade.price', { quote: market.quote })}</span>
        <span>{t('trade.qty', { base: market.base })}</span>
      </div>
      <ul aria-label={t('trade.asks')}>{[...asks].reverse().map(row('ask'))}</ul>
      <div className="book__mid">
        <p className="book__last num" data-testid="book-last">
          {truncate(last, pd)}
        </p>
        {spread !== null && (
          <p className="book__spread num" data-testid="book-spread">
            {t('trade.spread')} {truncate(spread, pd)}
            {spreadPct !== null && ` (${spreadPct}%)`}
          </p>
        )}
      </div>
      <ul aria-label={t('trade.bids')}>{bids.map(row('bid'))}</ul>
    </div>
  );
});

/** The latest trades, newest first; the taker's side by colour, arrow and a word. */
export const LatestTrades = memo(function LatestTrades({
  market,
  trades,
  loaded = true,
  failed = false,
  onRetry,
}: {
  market: MarketInfo;
  trades: TradeData[];
  /** The latest trades have come: none is "No data" (spec §8), not a bare table. */
  loaded?: boolean;
  failed?: boolean;
  onRetry?: () => void;
}) {
  const { t } = useTranslation();
  if (!trades.length) {
    if (failed && onRetry) return <LoadFailed onRetry={onRetry} />;
    return loaded ? <Empty /> : <Skeleton rows={3} height={22} />;
  }
  return (
    <table className="deals" data-testid="latest-trades">
      <caption className="visually-hidden">{t('trade.latestTrades')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('trade.time')}</th>
          <th scope="col">{t('trade.price', { quote: market.quote })}</th>
          <th scope="col">{t('trade.qty', { base: market.base })}</th>
        </tr>
      </thead>
      <tbody>
        {trades.map((d) => (
          <tr key={d.trade_id} className={`deals__row deals__row--${d.side}`}>
            <td>{formatTime(d.time, 'time', { hour12: false })}</td>
            <td className="num">
              <span aria-hidden="true">{d.side === 'buy' ? '▲' : '▼'} </span>
              <span className="visually-hidden">{t(d.side === 'buy' ? 'trade.buy' : 'trade.sell')} </span>
              {truncate(d.price, market.price_decimals)}
            </td>
            <td className="num">{truncate(d.quantity, market.qty_decimals)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
});
