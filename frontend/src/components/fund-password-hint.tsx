import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../app/paths';
import { useFreshUser } from './use-user';

/**
 * Spec §6: a fund password before withdrawals, address binding and trading. Shown to a signed-in
 * user who has none (read fresh when the screen opens), or where the screen knows it (`missing`),
 * with the way to set it: the server refuses the action with 2100 until then.
 */
export function FundPasswordHint({ missing }: { missing?: boolean }) {
  const { t } = useTranslation();
  const user = useFreshUser();
  if (!(missing ?? (user !== null && !user.has_fund_password))) return null;
  return (
    <p className="stale-badge" role="alert" data-testid="fund-password-hint">
      {t('funding.setFundPassword')} <Link to={PATHS.changePayPassword}>{t('security.setNow')}</Link>
    </p>
  );
}
