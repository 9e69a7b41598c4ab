import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { PATHS } from '../../../../app/paths';
import { Icon } from '../../../../components/icons';
import { Page } from '../../../../components/page';
import { inviteCodeFrom } from '../invite-code';

/** Choose how to register: by phone or by e-mail (an invite code in the link is carried over). */
export function ChoosePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const code = inviteCodeFrom(params);
  const to = (type: string) => `${PATHS.register}?type=${type}${code ? `&code=${encodeURIComponent(code)}` : ''}`;
  return (
    <Page title={t(titleKey)}>
      <div className="form">
        <h2 className="form__heading">{t('auth.chooseTitle')}</h2>
        <Link className="choice" to={to('phone')}>
          <strong>{t('auth.choosePhone')}</strong>
          <span className="muted">{t('auth.choosePhoneText')}</span>
          <Icon name="chevron" size={18} />
        </Link>
        <Link className="choice" to={to('email')}>
          <strong>{t('auth.chooseEmail')}</strong>
          <span className="muted">{t('auth.chooseEmailText')}</span>
          <Icon name="chevron" size={18} />
        </Link>
        <div className="form__links">
          <span>
            {t('auth.haveAccount')} <Link to={PATHS.login}>{t('auth.login')}</Link>
          </span>
        </div>
      </div>
    </Page>
  );
}
