import { useTranslation } from 'react-i18next';
import type { LedgerLine } from '../../api/wallet';
import { Empty } from '../../components/feedback';
import { direction, formatTime, truncate } from '../../components/format';

/** Ledger lines: the code's name in the reader's language (from the API), the signed change, the balance after. */
export function LedgerList({ lines }: { lines: LedgerLine[] }) {
  const { t } = useTranslation();
  if (!lines.length) return <Empty />;
  return (
    <ul className="list" data-testid="ledger">
      {lines.map((l) => {
        const dir = direction(l.amount);
        return (
          <li key={l.id} className="record" data-code={l.code}>
            <div className="record__head">
              <strong>
                {l.code_name} <span className="muted small">({l.code})</span>
              </strong>
              <span className={`num change change--${dir}`} data-testid="ledger-amount">
                {dir === 'up' ? '+' : ''}
                {l.amount} {l.symbol}
              </span>
            </div>
            <div className="record__head muted small">
              <span>{formatTime(l.created_at)}</span>
              <span>
                {t('assets.balanceAfter')} {truncate(l.balance_after, 8)}
              </span>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
