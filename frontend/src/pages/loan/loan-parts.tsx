import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { LoanOrder, LoanStatus } from '../../api/loan';
import { PATHS } from '../../app/paths';
import { mul } from '../../components/decimal';
import { formatTime, truncate } from '../../components/format';
import './loan.css';

/** A daily rate as a percentage (0.001 → 0.1%), truncated. */
export const pct = (rate: string, decimals = 3) => `${truncate(mul(rate, '100', 8), decimals)}%`;

/** The state in words and a mark, never by colour alone. */
export function LoanBadge({ status }: { status: LoanStatus }) {
  const { t } = useTranslation();
  return (
    <span className={`loan-badge loan-badge--${status}`} data-testid="loan-status" data-status={status}>
      {t(`loan.status.${status}`)}
    </span>
  );
}

const date = (iso: string | null) => (iso ? formatTime(iso) : '--');

/** One loan: amounts, dates, state; a repay link while something is owed. */
export function LoanCard({ o }: { o: LoanOrder }) {
  const { t } = useTranslation();
  const d = o.decimals;
  const owed = o.status === 'approved' || o.status === 'repaying' || o.status === 'overdue';
  return (
    <li className="loan-card" data-testid="loan-order" data-id={o.id} data-status={o.status}>
      <div className="loan-card__head">
        <h3 className="num">
          {truncate(o.amount, d)} {o.symbol}
        </h3>
        <LoanBadge status={o.status} />
      </div>
      <dl className="rows rows--compact">
        <div>
          <dt>{t('loan.cycle')}</dt>
          <dd className="num">{t('loan.days', { count: o.days })}</dd>
        </div>
        <div>
          <dt>{t('loan.dailyRate')}</dt>
          <dd className="num">{pct(o.daily_rate)}</dd>
        </div>
        <div>
          <dt>{t('loan.interest')}</dt>
          <dd className="num">{truncate(o.interest, d)}</dd>
        </div>
        <div>
          <dt>{t('loan.repayAmount')}</dt>
          <dd className="num">{truncate(o.repay_amount, d)}</dd>
        </div>
        <div>
          <dt>{t('loan.remaining')}</dt>
          <dd className="num" data-testid="loan-remaining">
            {truncate(o.remaining, d)}
          </dd>
        </div>
        <div>
          <dt>{t('loan.lender')}</dt>
          <dd>{o.lender}</dd>
        </div>
        <div>
          <dt>{t('loan.orderTime')}</dt>
          <dd className="num">{date(o.created_at)}</dd>
        </div>
        {o.due_at && (
          <div>
            <dt>{t('loan.dueAt')}</dt>
            <dd className="num">{date(o.due_at)}</dd>
          </div>
        )}
      </dl>
      {o.reason && o.status === 'rejected' && <p className="muted small">{t('loan.reason', { reason: o.reason })}</p>}
      {owed && (
        <Link className="button button--primary button--block" to={`${PATHS.loanBack}?id=${o.id}`} data-testid="loan-repay-link">
          {t('loan.repay')}
        </Link>
      )}
    </li>
  );
}
