import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { loanApi } from '../../../api/loan';
import { Skeleton } from '../../../components/feedback';
import { amountText, formatTime } from '../../../components/format';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { PullRefresh } from '../../../components/pull-refresh';
import { usePaged } from '../../../components/use-paged';
import '../loan.css';

const LIMIT = 50;

/** `loan/back_rec`: repayment records (all, or one loan's with `?id=`): from the balance, or transfers with their review. */
export function LoanBackRecPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = /^\d+$/.test(params.get('id') ?? '') ? params.get('id')! : undefined;
  const list = usePaged((page: number) => loanApi.records(id, page, LIMIT), LIMIT, { idOf: (r) => r.id });
  const { restart, reload } = list;
  useEffect(() => restart(), [id, restart]);
  return (
    <Page title={t(titleKey)} back>
      <PullRefresh onRefresh={reload}>
        <section className="card">
          <PagedList list={list} skeleton={<Skeleton rows={3} height={72} />}>
            {(rows) => (
              <ul className="loan-list" data-testid="loan-records">
                {rows.map((r) => (
                  <li key={r.id} className="loan-card" data-testid="loan-record" data-status={r.status}>
                    <div className="loan-card__head">
                      <h3 className="num">
                        {amountText(r.amount)} {r.symbol}
                      </h3>
                      <span className="loan-badge">{t(`loan.repayStatus.${r.status}`)}</span>
                    </div>
                    <dl className="rows rows--compact">
                      <div>
                        <dt>{t('loan.repayBy')}</dt>
                        <dd>{r.kind === 'balance' ? t('loan.byBalance') : t('loan.byTransfer')}</dd>
                      </div>
                      <div>
                        <dt>{t('loan.orderNo')}</dt>
                        <dd className="num">#{r.order_id}</dd>
                      </div>
                      {(r.status === 'done' || r.status === 'approved') && (
                        <div>
                          <dt>{t('loan.split')}</dt>
                          <dd className="num">{t('loan.splitValue', { interest: amountText(r.interest_part), principal: amountText(r.principal_part) })}</dd>
                        </div>
                      )}
                      <div>
                        <dt>{t('loan.time')}</dt>
                        <dd className="num">{formatTime(r.created_at)}</dd>
                      </div>
                    </dl>
                    {r.reason && r.status === 'rejected' && <p className="muted small">{t('loan.reason', { reason: r.reason })}</p>}
                  </li>
                ))}
              </ul>
            )}
          </PagedList>
        </section>
      </PullRefresh>
    </Page>
  );
}
