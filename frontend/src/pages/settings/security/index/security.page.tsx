import { useTranslation } from 'react-i18next';
import { Link, Navigate } from 'react-router-dom';
import { loginPath, PATHS } from '../../../../app/paths';
import { Icon } from '../../../../components/icons';
import { Page } from '../../../../components/page';
import { useFreshUser } from '../../../../components/use-user';

/** Security centre: the login password and the fund password (set or change). */
export function SecurityPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const user = useFreshUser();
  if (!user) return <Navigate replace to={loginPath(PATHS.security)} />;
  return (
    <Page title={t(titleKey)}>
      <section className="card">
        <ul className="list">
          <li>
            <Link className="list__item list__item--tall" to={PATHS.changePassword}>
              <span>
                <strong className="block">{t('security.loginPassword')}</strong>
                <small className="muted">{t('security.loginPasswordText')}</small>
              </span>
              <span className="muted list__value">{t('security.change')}</span>
              <Icon name="chevron" size={18} />
            </Link>
          </li>
          <li>
            <Link className="list__item list__item--tall" to={PATHS.changePayPassword} data-testid="fund-password-row">
              <span>
                <strong className="block">{t('security.fundPassword')}</strong>
                <small className="muted">{t('security.fundPasswordText')}</small>
              </span>
              <span className="muted list__value">{user.has_fund_password ? t('security.change') : t('security.setNow')}</span>
              <Icon name="chevron" size={18} />
            </Link>
          </li>
        </ul>
      </section>
    </Page>
  );
}
