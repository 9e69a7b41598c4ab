import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { loginPath, PATHS } from '../../../../app/paths';
import { copyText } from '../../../../components/copy';
import { Icon } from '../../../../components/icons';
import { Page } from '../../../../components/page';
import { useFreshUser } from '../../../../components/use-user';

/** Account info: nickname, account, phone, e-mail, and the invite code (copyable). */
export function AccountPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const user = useFreshUser();
  return (
    <Page title={t(titleKey)}>
      <section className="card">
        {user ? (
          <dl className="rows">
            <div>
              <dt>{t('settings.nickname')}</dt>
              <dd>{user.nickname}</dd>
            </div>
            <div>
              <dt>{t('settings.account')}</dt>
              <dd>{user.account}</dd>
            </div>
            <div>
              <dt>{t('settings.phone')}</dt>
              <dd>{user.phone ? `+${user.area_code} ${user.phone}` : t('common.notSet')}</dd>
            </div>
            <div>
              <dt>{t('settings.email')}</dt>
              <dd>{user.email ?? t('common.notSet')}</dd>
            </div>
            <div>
              <dt>{t('settings.inviteCode')}</dt>
              <dd className="with-action">
                <span data-testid="invite-code">{user.invite_code}</span>
                <button type="button" className="icon-button" onClick={() => copyText(user.invite_code)} aria-label={`${t('common.copy')} ${t('settings.inviteCode')}`}>
                  <Icon name="copy" size={20} />
                </button>
              </dd>
            </div>
          </dl>
        ) : (
          <div className="login-prompt">
            <p className="muted">{t('settings.loginToSee')}</p>
            <Link className="button button--primary" to={loginPath(PATHS.account)}>
              {t('auth.login')}
            </Link>
          </div>
        )}
      </section>
    </Page>
  );
}
