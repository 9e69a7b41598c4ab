import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { financeApi, type WealthProduct, type WealthReport } from '../../../api/finance';
import { PATHS } from '../../../app/paths';
import { Empty, Skeleton } from '../../../components/feedback';
import { FilterTabs } from '../../../components/form';
import { Page } from '../../../components/page';
import { useIsLoggedIn } from '../../../stores/session.store';
import { ProductCard, ReportCard } from '../finance-parts';

/**
 * The product list of one type (1 hosting, 2 mining rental), reloaded every 30 s (capacity, states).
 * Only this type's: another tab starts from a skeleton, and a late answer for the tab left is dropped.
 */
export function useProducts(type: 1 | 2) {
  const [list, setList] = useState<{ type: 1 | 2; items: WealthProduct[]; at: number } | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      financeApi.products(type).then(
        (items) => live && setList({ type, items, at: Date.now() }),
        // A failed reload keeps what is shown; a first load that fails shows the empty list.
        () => live && setList((l) => (l?.type === type ? l : { type, items: [], at: Date.now() })),
      );
    void load();
    const timer = setInterval(() => void load(), 30_000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [type]);
  return list?.type === type ? list : null;
}

/** My totals (only when logged in: a visitor is not sent to the login page by a list screen); `version` reloads them. */
export function useReport(version: unknown = 0) {
  const loggedIn = useIsLoggedIn();
  const [report, setReport] = useState<WealthReport | null>(null);
  useEffect(() => {
    if (loggedIn) financeApi.report().then(setReport, () => undefined);
  }, [loggedIn, version]);
  return report;
}

/** A product list with its type switch (hosting / mining rental). */
export function ProductList({ type, onType }: { type: 1 | 2; onType: (t: 1 | 2) => void }) {
  const { t } = useTranslation();
  const list = useProducts(type);
  return (
    <>
      <FilterTabs
        label={t('finance.listLabel')}
        value={type}
        options={[
          { value: 1, label: t('finance.hostingTab') },
          { value: 2, label: t('finance.miningTab') },
        ]}
        onChange={onType}
        testId={(v) => `wealth-type-${v}`}
      />
      <section className="card">
        {list === null ? (
          <Skeleton rows={3} height={120} />
        ) : list.items.length === 0 ? (
          <Empty />
        ) : (
          <ul className="wealth-list" data-testid="wealth-list">
            {list.items.map((p) => (
              <ProductCard key={p.id} p={p} loadedAt={list.at} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** `finance/index`: wealth products (fixed-term hosting and the flexible fund; `?type=2` mining rental), with my totals. */
export function FinancePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const type = params.get('type') === '2' ? 2 : 1;
  const report = useReport();
  return (
    <Page title={t(titleKey)} back right={<Link className="button button--small" to={PATHS.financeRule}>{t('finance.rules')}</Link>}>
      {report && <ReportCard report={report} />}
      <div className="wealth-links">
        <Link to={PATHS.financeOrders}>{t('finance.myHosting')}</Link>
        <Link to={PATHS.financeLc}>{t('finance.flexibleFund')}</Link>
      </div>
      <ProductList type={type} onType={(v) => setParams({ type: String(v) }, { replace: true })} />
    </Page>
  );
}
