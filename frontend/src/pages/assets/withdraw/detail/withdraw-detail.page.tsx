import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { unanswered } from '../../../../api/client';
import { walletApi, type FundingRecord } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { Empty, LoadFailed, Skeleton } from '../../../../components/feedback';
import { Page } from '../../../../components/page';
import { formatTime } from '../../../../components/format';

/** One withdrawal (`?id=`): amount, fee, what arrives, address, state, reason or transaction hash. */
export function WithdrawDetailPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('id');
  // undefined: asked for; null: no such withdrawal; 'failed': no answer (a retry is offered, not "No data").
  const [record, setRecord] = useState<FundingRecord | null | 'failed' | undefined>(undefined);
  const load = useCallback(() => {
    if (!id || !/^\d+$/.test(id)) return setRecord(null);
    setRecord(undefined);
    walletApi.withdrawal(id).then(setRecord, (err: unknown) => setRecord(unanswered(err) ? 'failed' : null));
  }, [id]);
  useEffect(load, [load]);
  const row = (label: string, value: string | null | undefined, testId?: string) =>
    value ? (
      <div>
        <dt>{label}</dt>
        <dd className="num" data-testid={testId}>{value}</dd>
      </div>
    ) : null;
  return (
    <Page title={t(titleKey)}>
      {record === undefined ? (
        <Skeleton rows={5} />
      ) : record === 'failed' ? (
        <LoadFailed onRetry={load} />
      ) : record === null ? (
        <Empty />
      ) : (
        <section className="card">
          <p>
            <span className={`status status--${record.status}`} data-testid="withdraw-status">{t(`funding.status.${record.status}`)}</span>
          </p>
          {record.status === 'review' && <p className="muted small">{t('funding.frozenWhileReview')}</p>}
          <dl className="rows">
            {row(t('funding.amount', { symbol: record.symbol }), record.amount, 'withdraw-amount')}
            {row(t('funding.fee'), record.fee)}
            {row(t('funding.receive'), record.actual_amount)}
            {row(t('funding.chain'), record.chain)}
            {row(t('funding.address'), record.address)}
            {row(t('funding.remark'), record.remark)}
            {row(t('funding.txHash'), record.tx_hash)}
            {row(t('funding.reasonLabel'), record.reason, 'withdraw-reason')}
            {row(t('funding.time'), formatTime(record.created_at))}
          </dl>
          <Link className="button button--block" to={`${PATHS.assetsRecord}?tab=withdraw`}>{t('funding.records')}</Link>
        </section>
      )}
    </Page>
  );
}
