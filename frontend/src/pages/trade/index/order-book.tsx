import type { DepthData, TradeData } from '@kestrel/contracts';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import type { MarketInfo } from '../../../api/trading';
import { Skeleton } from '../../../components/feedback';
import { truncate } from '../../../components/format';

const LEVELS = 8;

/** Asks (lowest nearest the middle) over bids; a tap on a price fills the order form's price. */
export const OrderBook = memo(function OrderBook({
  market,
  depth,
  last,
  onPrice,
}: {
  market: MarketInfo;
  depth: DepthData | null;
  last: string | null;
  onPrice: (price: string) => void;
}) {
  const { t } = useTranslation();
  if (!depth) return <Skeleton rows={6} height={22} />;
  const asks = depth.asks.slice(0, LEVELS).reverse();
  const bids = depth.bids.slice(0, LEVELS);
  const row =
    (side: 'ask' | 'bid') =>
    ([price, qty]: [string, string]) => (
      <li key={`${side}${price}`}>
        <button type="button" className={`book__row book__row--${side}`} onClick={() => onPrice(price)}>
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
      <ul aria-label={t('trade.asks')}>{asks.map(row('ask'))}</ul>
      <p className="book__last num" data-testid="book-last">
        {truncate(last, market.price_decimals)}
      </p>
      <ul aria-label={t('trade.bids')}>{bids.map(row('bid'))}</ul>
    </div>
  );
});

/** The latest trades, newest first; the taker's side by colour, arrow and a word. */
export const LatestTrades = memo(function LatestTrades({ market, trades }: { market: MarketInfo; trades: TradeData[] }) {
  const { t } = useTranslation();
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
            <td>{new Date(d.time).toLocaleTimeString([], { hour12: false })}</td>
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
