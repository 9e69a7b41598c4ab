import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { LOAN_FILTERS, loanApi, type LoanFilter, type LoanOrder } from '../../../api/loan';
import { PATHS } from '../../../app/paths';
import { Empty, Skeleton } from '../../../components/feedback';
import { Page } from '../../../components/page';
import { PullRefresh } from '../../../components/pull-refresh';
import { LoanCard } from '../loan-parts';

/** `loan/order`: my loans with the spec's filter (all, approving, approval failed, approval successful, repaying, repaid, overdue). */
export function LoanOrdersPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const status = (LOAN_FILTERS as string[]).includes(params.get('status') ?? '') ? (params.get('status') as LoanFilter) : 'all';
  const [orders, setOrders] = useState<LoanOrder[] | null>(null);
  const load = useCallback(
    () =>
      loanApi.orders(status).then(
        (p) => setOrders(p.items),
        () => setOrders((o) => o ?? []),
      ),
    [status],
  );
  useEffect(() => {
    setOrders(null);
    void load();
  }, [load]);
  return (
    <Page title={t(titleKey)} back right={<Link className="button button--small" to={PATHS.loanBackRec}>{t('titles.loanBackRec')}</Link>}>
      <nav className="segmented loan-filter" aria-label={t('loan.filter')}>
        {LOAN_FILTERS.map((s) => (
          <button
            key={s}
            type="button"
            className={status === s ? 'is-active' : ''}
            aria-pressed={status === s}
            onClick={() => setParams({ status: s }, { replace: true })}
            data-testid={`loan-filter-${s}`}
          >
            {t(`loan.filters.${s}`)}
          </button>
        ))}
      </nav>
      <PullRefresh onRefresh={load}>
        <section className="card">
          {orders === null ? (
            <Skeleton rows={3} height={96} />
          ) : orders.length === 0 ? (
            <Empty />
          ) : (
            <ul className="loan-list" data-testid="loan-orders">
              {orders.map((o) => (
                <LoanCard key={o.id} o={o} />
              ))}
            </ul>
          )}
        </section>
      </PullRefresh>
    </Page>
  );
}
