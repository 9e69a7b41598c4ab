import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../../app/paths';
import { Empty, Skeleton } from '../../../components/feedback';
import { truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { ProductCard, ReportCard } from '../finance-parts';
import { useProducts, useReport } from '../index/finance.page';

/** `finance/index_lc`: the flexible fund (earns from 10,000 USDT, from the next day, credited at 00:00 UTC). */
export function FlexiblePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const list = useProducts(1);
  const report = useReport();
  const funds = list?.items.filter((p) => p.kind === 'flexible') ?? [];
  return (
    <Page title={t(titleKey)} back right={<Link className="button button--small" to={PATHS.financeRuleLc}>{t('finance.rules')}</Link>}>
      {report && <ReportCard report={report} />}
      <section className="card">
        {list === null ? (
          <Skeleton rows={2} height={120} />
        ) : funds.length === 0 ? (
          <Empty />
        ) : (
          <>
            <p className="muted small">{t('finance.flexibleNote', { min: truncate(funds[0].accrual_min, 0) })}</p>
            <ul className="wealth-list" data-testid="wealth-list">
              {funds.map((p) => (
                <ProductCard key={p.id} p={p} loadedAt={list.at} />
              ))}
            </ul>
          </>
        )}
      </section>
      <div className="wealth-links">
        <Link to={PATHS.financeOrders}>{t('finance.myHosting')}</Link>
        <Link to={PATHS.financeRuleLc}>{t('finance.viewRules')}</Link>
      </div>
    </Page>
  );
}
