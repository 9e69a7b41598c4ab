import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../../app/paths';
import { Page } from '../../../components/page';
import { ProductList, useReport } from '../../finance/index/finance.page';
import { ReportCard } from '../../finance/finance-parts';

/** `template/index`: the Trust tab. My wealth totals, the way to my hosting, the flexible fund, IEO and the rules, then the product lists. */
export function TemplatePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [type, setType] = useState<1 | 2>(1);
  const report = useReport();
  return (
    <Page title={t(titleKey)}>
      <ReportCard report={report} />
      <div className="wealth-links">
        <Link to={PATHS.financeOrders} data-testid="link-my-hosting">
          {t('finance.myHosting')}
        </Link>
        <Link to={PATHS.financeLc}>{t('finance.flexibleFund')}</Link>
        <Link to={PATHS.ieo}>{t('finance.ieo')}</Link>
        <Link to={PATHS.financeRule}>{t('finance.rules')}</Link>
      </div>
      <ProductList type={type} onType={setType} />
    </Page>
  );
}
