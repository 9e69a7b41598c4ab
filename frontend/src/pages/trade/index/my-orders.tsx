import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { tradingApi, type MarketInfo, type Order, type OrderStatus } from '../../../api/trading';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Segmented } from '../../../components/form';
import { amountText, formatTime, truncate } from '../../../components/format';
import { useLiveStore } from '../../../live/live.store';
import { toast } from '../../../stores/toast.store';

type Tab = 'current' | 'history';
/** Orders a "page" of the list shows, and the most it shows (the most `coin/list` answers at once): the newest 100. */
const PAGE = 20;
const MAX = 100;
const HISTORY: Array<OrderStatus | 'all'> = ['all', 'completed', 'cancelled', 'waiting'];

/**
 * Current orders (waiting, with cancel) and history (completed, cancelled, waiting). Reloaded
 * when one of the user's orders changes (private `orders` push), after a resync and after placing.
 */
export function MyOrders({ market, reloadKey, offline }: { market: MarketInfo; reloadKey: number; offline: boolean }) {
  const { t } = useTranslation();
  const [tab, setTab] = useState<Tab>('current');
  const [filter, setFilter] = useState<OrderStatus | 'all'>('all');
  // null: asked for; 'failed': a first load that got no answer (a retry is offered, never "no orders").
  const [orders, setOrders] = useState<Order[] | 'failed' | null>(null);
  const [total, setTotal] = useState(0);
  // How many of the newest are shown: "Load more" asks for PAGE more, up to the API's MAX a list.
  const [shown, setShown] = useState(PAGE);
  const [cancelling, setCancelling] = useState<string | null>(null);
  const orderVersion = useLiveStore((s) => s.orderVersion);
  // A resync (the socket came back without the pushes it missed): orders may have filled or been cancelled meanwhile.
  const resync = useLiveStore((s) => s.resync);
  const status: OrderStatus | undefined = tab === 'current' ? 'waiting' : filter === 'all' ? undefined : filter;
  // The newest request's answer only: after a fast switch of market or tab, an earlier answer arriving
  // late would show the previous market's orders (with Cancel) under this one.
  const latest = useRef(0);
  const load = useCallback(() => {
    const mine = ++latest.current;
    return tradingApi.orders({ status, symbol: market.symbol, limit: shown }).then(
      (p) => {
        if (mine !== latest.current) return;
        setOrders(p.items);
        setTotal(p.total);
      },
      // A failed reload keeps what is shown; a first load that fails offers a retry.
      () => mine === latest.current && setOrders((o) => o ?? 'failed'),
    );
  }, [status, market.symbol, shown]);
  useEffect(() => void load(), [load, reloadKey, orderVersion, resync]);
  useEffect(() => {
    setOrders(null);
    setShown(PAGE);
  }, [status, market.symbol]);

  const cancel = async (o: Order) => {
    setCancelling(o.order_id);
    try {
      await tradingApi.cancel(o.order_id);
      toast(t('trade.cancelled'));
      await load();
    } catch {
      // Shown by the client; the list is read again (the order may have filled or been cancelled meanwhile: 2104).
      void load();
    } finally {
      setCancelling(null);
    }
  };
  return (
    <section className="card" aria-labelledby="orders-title">
      <h2 id="orders-title" className="visually-hidden">
        {t('trade.myOrders')}
      </h2>
      <Segmented
        label={t('trade.myOrders')}
        value={tab}
        onChange={setTab}
        options={[
          { value: 'current', label: t('trade.currentOrders') },
          { value: 'history', label: t('trade.historyOrders') },
        ]}
      />
      {tab === 'history' && (
        <div className="chips" role="radiogroup" aria-label={t('trade.statusFilter')}>
          {HISTORY.map((s) => (
            <button
              key={s}
              type="button"
              role="radio"
              aria-checked={filter === s}
              className={`chip${filter === s ? ' is-active' : ''}`}
              onClick={() => setFilter(s)}
            >
              {t(`trade.status.${s}`)}
            </button>
          ))}
        </div>
      )}
      {orders === null ? (
        <Skeleton rows={2} height={64} />
      ) : orders === 'failed' ? (
        <LoadFailed onRetry={() => void load()} />
      ) : orders.length === 0 ? (
        <Empty />
      ) : (
        <ul className="orders" data-testid={tab === 'current' ? 'current-orders' : 'history-orders'}>
          {orders.map((o) => (
            <li key={o.order_id} className="order" data-status={o.status}>
              <div className="order__head">
                <strong className={`side side--${o.side}`}>
                  <span aria-hidden="true">{o.side === 'buy' ? '▲' : '▼'} </span>
                  {t(o.side === 'buy' ? 'trade.buy' : 'trade.sell')} · {t(o.type === 'limit' ? 'trade.limit' : 'trade.market')}
                </strong>
                <span className="muted small">{formatTime(o.created_at)}</span>
              </div>
              <dl className="order__grid order__grid--spot">
                <div>
                  <dt>{t('trade.price', { quote: market.quote })}</dt>
                  <dd className="num">{o.price ? truncate(o.price, market.price_decimals) : t('trade.market')}</dd>
                </div>
                <div>
                  <dt>{t('trade.filledOf', { base: market.base })}</dt>
                  <dd className="num" data-testid="order-filled">
                    {truncate(o.filled_qty, market.qty_decimals)} / {o.quantity ? truncate(o.quantity, market.qty_decimals) : '--'}
                  </dd>
                </div>
                <div>
                  <dt>{t('trade.statusLabel')}</dt>
                  <dd data-testid="order-status">{t(`trade.status.${o.status}`)}</dd>
                </div>
                <div>
                  <dt>{t('trade.avgPrice', { quote: market.quote })}</dt>
                  <dd className="num">{truncate(o.avg_price, market.price_decimals)}</dd>
                </div>
                <div>
                  <dt>{t('trade.amount', { quote: market.quote })}</dt>
                  {/* A market buy by amount: what it spent of the amount it was given. */}
                  <dd className="num" data-testid="order-amount">
                    {amountText(o.filled_amount)}
                    {o.amount && !o.quantity ? ` / ${amountText(o.amount)}` : ''}
                  </dd>
                </div>
                <div>
                  <dt>{t('trade.feePreview')}</dt>
                  <dd className="num" data-testid="order-fee">
                    {amountText(o.fee)} {o.fee_currency}
                  </dd>
                </div>
              </dl>
              {o.status === 'waiting' && (
                <button type="button" className="button button--small order__cancel" onClick={() => cancel(o)} disabled={cancelling === o.order_id || offline}>
                  {t('common.cancel')}
                  <span className="visually-hidden"> {t('trade.orderAt', { price: o.price ?? '' })}</span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {orders !== null && orders.length >= shown && shown < Math.min(total, MAX) && (
        <button type="button" className="button button--block" onClick={() => setShown((n) => Math.min(n + PAGE, MAX))}>
          {t('common.loadMore')}
        </button>
      )}
    </section>
  );
}
