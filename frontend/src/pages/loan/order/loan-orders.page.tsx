import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { LOAN_FILTERS, loanApi, type LoanFilter } from '../../../api/loan';
import { PATHS } from '../../../app/paths';
import { Skeleton } from '../../../components/feedback';
import { FilterTabs } from '../../../components/form';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { PullRefresh } from '../../../components/pull-refresh';
import { usePaged } from '../../../components/use-paged';
import { LoanCard } from '../loan-parts';

const LIMIT = 50;

/** `loan/order`: my loans with the spec's filter (all, approving, approval failed, approval successful, repaying, repaid, overdue). */
export function LoanOrdersPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const status = (LOAN_FILTERS as string[]).includes(params.get('status') ?? '') ? (params.get('status') as LoanFilter) : 'all';
  const list = usePaged((page: number) => loanApi.orders(status, page, LIMIT), LIMIT, { idOf: (o) => o.id });
  const { restart, reload } = list;
  useEffect(() => restart(), [status, restart]);
  return (
    <Page
      title={t(titleKey)}
      back
      right={
        <Link className="button button--small" to={PATHS.loanBackRec}>
          {t('loan.repayments')}
        </Link>
      }
    >
      <FilterTabs
        className="loan-filter"
        label={t('loan.filter')}
        value={status}
        options={LOAN_FILTERS.map((s) => ({ value: s, label: t(`loan.filters.${s}`) }))}
        onChange={(s) => setParams({ status: s }, { replace: true })}
        testId={(s) => `loan-filter-${s}`}
      />
      <PullRefresh onRefresh={reload}>
        <section className="card">
          <PagedList list={list} skeleton={<Skeleton rows={3} height={96} />}>
            {(orders) => (
              <ul className="loan-list" data-testid="loan-orders">
                {orders.map((o) => (
                  <LoanCard key={o.id} o={o} />
                ))}
              </ul>
            )}
          </PagedList>
        </section>
      </PullRefresh>
    </Page>
  );
}
