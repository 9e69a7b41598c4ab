import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { loanApi, type LoanRepayment } from '../../../api/loan';
import { Empty, Skeleton } from '../../../components/feedback';
import { formatTime, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { PullRefresh } from '../../../components/pull-refresh';
import '../loan.css';

/** `loan/back_rec`: repayment records (all, or one loan's with `?id=`): from the balance, or transfers with their review. */
export function LoanBackRecPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = /^\d+$/.test(params.get('id') ?? '') ? params.get('id')! : undefined;
  const [rows, setRows] = useState<LoanRepayment[] | null>(null);
  const load = useCallback(
    () =>
      loanApi.records(id).then(
        (p) => setRows(p.items),
        () => setRows((r) => r ?? []),
      ),
    [id],
  );
  useEffect(() => void load(), [load]);
  return (
    <Page title={t(titleKey)} back>
      <PullRefresh onRefresh={load}>
        <section className="card">
          {rows === null ? (
            <Skeleton rows={3} height={72} />
          ) : rows.length === 0 ? (
            <Empty />
          ) : (
            <ul className="loan-list" data-testid="loan-records">
              {rows.map((r) => (
                <li key={r.id} className="loan-card" data-testid="loan-record" data-status={r.status}>
                  <div className="loan-card__head">
                    <h3 className="num">
                      {truncate(r.amount, 8)} {r.symbol}
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
                        <dd className="num">{t('loan.splitValue', { interest: truncate(r.interest_part, 8), principal: truncate(r.principal_part, 8) })}</dd>
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
        </section>
      </PullRefresh>
    </Page>
  );
}
