import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { isTabPath } from '../app/paths';
import { Page } from './page';

/** The one shared screen for routes whose features arrive in later issues. */
export function NotAvailablePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <Page title={t(titleKey)} back={!isTabPath(pathname)}>
      <section className="center-state" aria-labelledby="na-title">
        <svg width="72" height="72" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.2" aria-hidden="true">
          <circle cx="12" cy="12" r="9" />
          <path d="M12 7v5l3 2" />
        </svg>
        <h2 id="na-title">{t('common.notAvailableTitle')}</h2>
        <p className="muted">{t('common.notAvailableText')}</p>
        <Link className="button button--primary" to="/" replace>
          {t('common.goHome')}
        </Link>
      </section>
    </Page>
  );
}
