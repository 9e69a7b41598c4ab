import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../../../app/paths';
import { Icon } from '../../../../components/icons';
import { Page } from '../../../../components/page';

/** After a deposit report: it is under review; where to follow it. */
export function RedirectPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Page title={t(titleKey)}>
      <section className="center-state" data-testid="deposit-submitted">
        <Icon name="check" size={56} />
        <h2>{t('funding.depositSubmitted')}</h2>
        <p className="muted">{t('funding.depositReview')}</p>
        <Link className="button button--primary" to={`${PATHS.assetsRecord}?tab=deposit`} replace>
          {t('funding.records')}
        </Link>
        <Link className="button" to={PATHS.assets} replace>
          {t('titles.assets')}
        </Link>
      </section>
    </Page>
  );
}
