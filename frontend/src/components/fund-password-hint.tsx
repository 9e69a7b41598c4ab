import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../app/paths';
import { useFreshUser } from './use-user';

/**
 * Spec §6: a fund password before withdrawals, address binding and trading. The note, with the way
 * to set it (the server refuses the action with 2100 until then), for a screen that knows the user
 * has none.
 */
export function FundPasswordNote() {
  const { t } = useTranslation();
  return (
    <p className="stale-badge" role="alert" data-testid="fund-password-hint">
      {t('funding.setFundPassword')} <Link to={PATHS.changePayPassword}>{t('security.setNow')}</Link>
    </p>
  );
}

/** The note on a trading screen: shown to a signed-in user who has no fund password (read fresh when the screen opens). */
export function FundPasswordHint() {
  const user = useFreshUser();
  return user && !user.has_fund_password ? <FundPasswordNote /> : null;
}
