import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { optionApi, type OptionAudit, type OptionOrder } from '../../../api/derivatives';
import { PATHS } from '../../../app/paths';
import { AuditSection, compareDecimal, exact, FormulaLine, TickList, TickLine, Verdict } from '../../../components/audit';
import { Skeleton } from '../../../components/feedback';
import { amountText, formatTime, priceDecimals, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { usePaged } from '../../../components/use-paged';
import { useLive, useLiveStore } from '../../../live/live.store';
import { StaleBadge } from '../../../live/stale-badge';
import { PnL } from '../../lever/index/position-parts';

const LIMIT = 50;

/**
 * The user's options of one status, 50 at a time. Awaiting delivery: read again from the start
 * when one is delivered (socket `option`) and after a resync (a delivered one leaves the list);
 * delivered: what is new goes on top of the pages shown (`refresh`).
 */
function useOptionOrders(status: 'pending' | 'delivered') {
  const { resync } = useLive();
  const optionVersion = useLiveStore((s) => s.optionVersion);
  const list = usePaged(
    (page: number) =>
      optionApi.list(status, page, LIMIT).then((p) => ({ ...p, items: p.items.map((o) => ({ ...o, due: Date.now() + o.remaining_seconds * 1000 })) })),
    LIMIT,
    { idOf: (o) => o.order_id },
  );
  const { reload, refresh } = list;
  const update = status === 'pending' ? reload : refresh;
  useEffect(() => void update(), [update, optionVersion, resync]);
  return list;
}

function Direction({ direction }: { direction: 'up' | 'down' }) {
  const { t } = useTranslation();
  return (
    <strong className={`side side--${direction === 'up' ? 'buy' : 'sell'}`}>
      <span aria-hidden="true">{direction === 'up' ? '▲ ' : '▼ '}</span>
      {t(direction === 'up' ? 'option.up' : 'option.down')}
    </strong>
  );
}

function Countdown({ due }: { due: number }) {
  const { t } = useTranslation();
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.ceil((due - now) / 1000));
  return (
    <span className="num countdown" data-testid="countdown" role="timer" aria-live="off">
      {left > 0 ? t('option.remaining', { seconds: left }) : t('option.delivering')}
    </span>
  );
}

function Tabs({ current }: { current: 'pending' | 'delivered' }) {
  const { t } = useTranslation();
  return (
    <nav className="segmented" aria-label={t('option.orders')}>
      <Link className={current === 'pending' ? 'is-active' : ''} aria-current={current === 'pending' ? 'page' : undefined} to={PATHS.optionDetails} replace>
        {t('option.awaiting')}
      </Link>
      <Link
        className={current === 'delivered' ? 'is-active' : ''}
        aria-current={current === 'delivered' ? 'page' : undefined}
        to={PATHS.optionDetails2}
        replace
      >
        {t('option.history')}
      </Link>
    </nav>
  );
}

/** `option/details`: options awaiting delivery with a live countdown; a delivered one leaves for the history. */
export function OptionPendingPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { status } = useLive();
  const list = useOptionOrders('pending');
  return (
    <Page title={t(titleKey)}>
      <StaleBadge status={status} />
      <Tabs current="pending" />
      <section className="card">
        <PagedList list={list}>
          {(orders) => (
            <ul className="orders" data-testid="option-pending">
              {orders.map((o) => (
                <li key={o.order_id} className="order" data-testid="option-order">
                  <div className="order__head">
                    <span>
                      {o.symbol} · <Direction direction={o.direction} />
                    </span>
                    <Countdown due={o.due} />
                  </div>
                  <dl className="order__grid">
                    <div>
                      <dt>{t('option.quantity')}</dt>
                      <dd className="num">{amountText(o.quantity)}</dd>
                    </div>
                    <div>
                      <dt>{t('option.openPrice')}</dt>
                      <dd className="num">{truncate(o.open_price, priceDecimals(o.open_price))}</dd>
                    </div>
                    <div>
                      <dt>{t('option.deliveryTime')}</dt>
                      <dd className="num">{t('option.seconds', { seconds: o.seconds })}</dd>
                    </div>
                    <div>
                      <dt>{t('option.purchaseTime')}</dt>
                      <dd className="num">{formatTime(o.purchase_time)}</dd>
                    </div>
                  </dl>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
      </section>
    </Page>
  );
}

/**
 * The settlement audit of a delivered option (GET microtrade/ticks): the recorded opening and
 * delivery ticks, the rule and the payout formula with this order's numbers, and the result.
 */
function Audit({ order }: { order: OptionOrder }) {
  const { t } = useTranslation();
  const [audit, setAudit] = useState<OptionAudit | null | 'failed'>(null);
  useEffect(() => {
    optionApi.ticks(order.order_id).then(setAudit, () => setAudit('failed'));
  }, [order.order_id]);
  if (audit === null) return <Skeleton rows={1} />;
  if (audit === 'failed')
    return (
      <p className="audit muted small" role="alert">
        {t('integrity.audit.failed')}
      </p>
    );
  const result = audit.result;
  const won = result !== null && result === audit.direction;
  // The result is a pure function of the two recorded ticks and the delivery time (docs/api.md): recomputed here from them.
  const recomputed = audit.open_tick && audit.delivery_tick ? compareDecimal(audit.delivery_tick.price, audit.open_tick.price) : null;
  // An option delivered before there was a lateness bound (`void_after_ms` null) is never void.
  const bound = audit.void_after_ms;
  const late = bound !== null && audit.delivery_tick !== null && Date.parse(audit.delivery_tick.time) - Date.parse(audit.deliver_at) > bound;
  // Delivered without a delivery tick: void if no sample is listed from the delivery time to the
  // lateness bound (a later first sample makes it void all the same; one saved after the void, stamped
  // before `stranded_after_ms`, is listed too), provided that stretch is listed whole.
  const due = Date.parse(audit.deliver_at);
  const stranded =
    result !== null &&
    audit.delivery_tick === null &&
    audit.delivery_ticks_complete &&
    !audit.ticks.some((k) => k.source === 'sample' && Date.parse(k.time) >= due && (bound === null || Date.parse(k.time) - due <= bound));
  const outcome = stranded ? 'void' : recomputed === null ? null : late ? 'void' : recomputed > 0 ? 'up' : recomputed < 0 ? 'down' : 'flat';
  const seconds = (bound ?? 0) / 1000;
  return (
    <div className="audit" data-testid="option-audit" id={`audit-${order.order_id}`}>
      <h3 className="audit__title">{t('integrity.audit.title')}</h3>
      <AuditSection title={t('integrity.audit.ticksTitle')}>
        <TickLine label={t('option.openTick')} tick={audit.open_tick} testId="audit-open" />
        <TickLine label={t('option.deliveryTick')} tick={audit.delivery_tick} testId="audit-delivery" />
      </AuditSection>
      <TickList ticks={audit.ticks} complete={audit.ticks_complete} />
      <AuditSection title={t('integrity.audit.formula')}>
        <FormulaLine
          label={bound === null ? t('integrity.audit.optionRule') : t('integrity.audit.optionRuleVoid', { seconds })}
          value={outcome ? t(`option.result.${outcome}`) : '--'}
          testId="audit-recomputed"
        />
        <FormulaLine
          label={
            won
              ? t('integrity.audit.optionWin', { ratio: exact(order.profit_ratio) })
              : result === 'void'
                ? audit.delivery_tick === null
                  ? t('integrity.audit.optionVoidNone', { seconds: audit.stranded_after_ms / 1000 })
                  : t('integrity.audit.optionVoid', { seconds })
                : result === 'flat'
                  ? t('integrity.audit.optionFlat')
                  : t('integrity.audit.optionLost')
          }
          value={`${exact(order.payout)} USDT`}
          testId="audit-payout"
        />
        <FormulaLine label={t('integrity.audit.optionPnl')} value={`${exact(order.pnl)} USDT`} />
      </AuditSection>
      <AuditSection title={t('integrity.audit.result')}>
        <FormulaLine label={t('option.resultLabel')} value={result ? t(`option.result.${result}`) : '--'} testId="audit-result" strong />
      </AuditSection>
      <Verdict ok={outcome !== null && outcome === result} />
      <p className="muted small">{t('integrity.audit.public', { id: order.order_id })}</p>
    </div>
  );
}

/** `option/details2`: delivered options (result, delivery price, P/L), each with its audit; pull-down refresh is the layout's. */
export function OptionHistoryPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const list = useOptionOrders('delivered');
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Page title={t(titleKey)}>
      <Tabs current="delivered" />
      <section className="card">
        <PagedList list={list}>
          {(orders) => (
            <ul className="orders" data-testid="option-history">
              {orders.map((o) => {
                const pd = priceDecimals(o.open_price);
                return (
                  <li key={o.order_id} className="order" data-testid="option-delivered">
                    <div className="order__head">
                      <span>
                        {o.symbol} · <Direction direction={o.direction} />
                      </span>
                      <PnL value={o.pnl} />
                    </div>
                    <dl className="order__grid">
                      <div>
                        <dt>{t('option.resultLabel')}</dt>
                        <dd data-testid="option-result" data-result={o.result ?? ''}>
                          <span aria-hidden="true">{o.result === 'up' ? '▲ ' : o.result === 'down' ? '▼ ' : '– '}</span>
                          {o.result ? t(`option.result.${o.result}`) : '--'}
                        </dd>
                      </div>
                      <div>
                        <dt>{t('option.openPrice')}</dt>
                        <dd className="num">{truncate(o.open_price, pd)}</dd>
                      </div>
                      <div>
                        <dt>{t('option.deliveryPrice')}</dt>
                        <dd className="num">{truncate(o.delivery_price, pd)}</dd>
                      </div>
                      <div>
                        <dt>{t('option.quantity')}</dt>
                        <dd className="num">{amountText(o.quantity)}</dd>
                      </div>
                      <div>
                        <dt>{t('option.purchaseTime')}</dt>
                        <dd className="num">{formatTime(o.purchase_time)}</dd>
                      </div>
                      <div>
                        <dt>{t('option.deliveryTime')}</dt>
                        <dd className="num">{formatTime(o.deliver_at)}</dd>
                      </div>
                    </dl>
                    <button
                      type="button"
                      className="button button--block audit__toggle"
                      aria-expanded={open === o.order_id}
                      aria-controls={`audit-${o.order_id}`}
                      onClick={() => setOpen(open === o.order_id ? null : o.order_id)}
                      data-testid="audit-toggle"
                    >
                      {t('integrity.audit.toggle')}
                    </button>
                    {open === o.order_id && <Audit order={o} />}
                  </li>
                );
              })}
            </ul>
          )}
        </PagedList>
      </section>
    </Page>
  );
}
