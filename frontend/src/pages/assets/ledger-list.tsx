import { useTranslation } from 'react-i18next';
import type { LedgerLine } from '../../api/wallet';
import { Empty } from '../../components/feedback';
import { amountText, direction, formatTime } from '../../components/format';

/**
 * Ledger lines: the code's name (the catalogue's, as the records filter names it; the API's
 * `code_name` for a code the app does not know), the account, the signed change, the balance after.
 * A freeze or release moves money between available and frozen, so its total change is 0: the line
 * shows its frozen change instead.
 */
export function LedgerList({ lines }: { lines: LedgerLine[] }) {
  const { t, i18n } = useTranslation();
  if (!lines.length) return <Empty />;
  return (
    <ul className="list" data-testid="ledger">
      {lines.map((l) => {
        const key = `ledgerCodes.c${l.code}`;
        const frozenOnly = direction(l.amount) === 'flat' && direction(l.frozen_change) !== 'flat';
        const change = frozenOnly ? l.frozen_change : l.amount;
        const dir = direction(change);
        return (
          <li key={l.id} className="record" data-code={l.code}>
            <div className="record__head">
              <strong>
                {i18n.exists(key) ? t(key) : l.code_name} <span className="muted small">({l.code})</span>
              </strong>
              <span className={`num change change--${dir}`} data-testid="ledger-amount">
                {frozenOnly && `${t('assets.frozen')} `}
                {dir === 'up' ? '+' : ''}
                {amountText(change)} {l.symbol}
              </span>
            </div>
            <div className="record__head muted small">
              <span>
                {formatTime(l.created_at)} · {t(`assets.account.${l.account}`)}
              </span>
              <span>
                {t('assets.balanceAfter')} {amountText(l.balance_after)}
              </span>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
