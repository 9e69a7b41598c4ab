import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { financeApi, type WealthOrder, type WealthOrderStatus } from '../../../api/finance';
import { Skeleton } from '../../../components/feedback';
import { FilterTabs } from '../../../components/form';
import { formatTime, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { usePaged } from '../../../components/use-paged';
import { ReportCard, useDuration, useNow } from '../finance-parts';
import { useReport } from '../index/finance.page';
import { RedeemPopup } from './redeem-popup';

const TABS: WealthOrderStatus[] = ['hosting', 'completed', 'redeemed'];
const LIMIT = 50;

function Countdowns({ o, loadedAt }: { o: WealthOrder; loadedAt: number }) {
  const { t } = useTranslation();
  const now = useNow();
  const duration = useDuration();
  const matures = o.end_at ? loadedAt + o.remaining_seconds * 1000 - now : null;
  const next = o.next_credit_at ? Date.parse(o.next_credit_at) - now : null;
  return (
    <p className="muted small">
      {matures !== null && (
        <span className="num countdown" role="timer" data-testid="matures-in">
          {t('finance.maturesIn', { time: duration(matures) })}
        </span>
      )}
      {matures !== null && next !== null && ' · '}
      {next !== null && <span className="num">{t('finance.nextCredit', { time: duration(next) })}</span>}
    </p>
  );
}

/** `finance/ordersPage`: my hosting (tabs hosting / completed / redeemed), live countdowns, early redemption with the penalty shown first. */
export function OrdersPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const status = (TABS as string[]).includes(params.get('status') ?? '') ? (params.get('status') as WealthOrderStatus) : 'hosting';
  const [redeeming, setRedeeming] = useState<WealthOrder | null>(null);
  // The report is read again with the orders' first page (another tab, a redemption): their sums move together.
  const [loadedAt, setLoadedAt] = useState(0);
  const report = useReport(`${status}:${loadedAt}`);
  // Each order keeps when its page came: its countdowns run from then.
  const list = usePaged(
    (page: number) => financeApi.orders(status, page, LIMIT).then((p) => ({ ...p, items: p.items.map((o) => ({ ...o, at: Date.now() })) })),
    LIMIT,
    {
      idOf: (o) => o.order_id,
      onPage: (p) => p.page === 1 && setLoadedAt(Date.now()),
    },
  );
  const { restart } = list;
  useEffect(() => restart(), [status, restart]);
  const closePopup = useCallback(() => setRedeeming(null), []);
  return (
    <Page title={t(titleKey)} back>
      <ReportCard report={report} />
      <FilterTabs
        label={t('finance.orders')}
        value={status}
        options={TABS.map((s) => ({ value: s, label: t(`finance.orderTabs.${s}`) }))}
        onChange={(s) => setParams({ status: s }, { replace: true })}
        testId={(s) => `orders-tab-${s}`}
      />
      <section className="card">
        <PagedList list={list} skeleton={<Skeleton rows={3} height={96} />}>
          {(orders) => (
            <ul className="wealth-list" data-testid="wealth-orders">
              {orders.map((o) => (
                <li key={o.order_id} className="wealth-card" data-testid="wealth-order" data-status={o.status}>
                  <div className="wealth-card__head">
                    <h3>{o.name || t(`finance.kind.${o.kind}`)}</h3>
                    <span className="wealth-badge">{t(`finance.orderTabs.${o.status}`)}</span>
                  </div>
                  <dl className="rows rows--compact">
                    <div>
                      <dt>{t('finance.custody')}</dt>
                      <dd className="num" data-testid="order-amount">
                        {truncate(o.amount, 2)} USDT
                      </dd>
                    </div>
                    {o.kind !== 'flexible' && (
                      <div>
                        <dt>{t('finance.remainingDays')}</dt>
                        <dd className="num">{o.remaining_days}</dd>
                      </div>
                    )}
                    <div>
                      <dt>{t('finance.currentYield')}</dt>
                      <dd className="num">{truncate(o.earned, 8)} USDT</dd>
                    </div>
                    <div>
                      <dt>{t('finance.purchaseTime')}</dt>
                      <dd className="num">{formatTime(o.purchase_time)}</dd>
                    </div>
                    <div>
                      <dt>{t('finance.completionTime')}</dt>
                      <dd className="num">{o.completion_time ? formatTime(o.completion_time) : o.end_at ? formatTime(o.end_at) : '--'}</dd>
                    </div>
                    {o.status === 'redeemed' && (
                      <div>
                        <dt>{t('finance.penalty')}</dt>
                        <dd className="num" data-testid="order-penalty">
                          {truncate(o.penalty, 8)} USDT
                        </dd>
                      </div>
                    )}
                  </dl>
                  {o.status === 'hosting' && (
                    <>
                      <Countdowns o={o} loadedAt={o.at} />
                      <div className="wealth-actions">
                        <button type="button" className="button" onClick={() => setRedeeming(o)} data-testid="wealth-redeem">
                          {t('finance.redeem')}
                        </button>
                      </div>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
        </PagedList>
      </section>
      {redeeming && (
        <RedeemPopup
          order={redeeming}
          onClose={closePopup}
          onDone={() => {
            setRedeeming(null);
            setParams({ status: 'redeemed' }, { replace: true });
          }}
        />
      )}
    </Page>
  );
}
