import { useTranslation } from 'react-i18next';
import { Page } from '../../../components/page';
import '../finance.css';

/** `finance/rulePage`: how wealth products earn, mature and are redeemed early. */
export function RulePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Page title={t(titleKey)} back>
      <section className="card">
        <ol className="wealth-rules" data-testid="wealth-rules">
          {(['rule1', 'rule2', 'rule3', 'rule4', 'rule5', 'rule6'] as const).map((k) => (
            <li key={k}>{t(`finance.${k}`)}</li>
          ))}
        </ol>
      </section>
    </Page>
  );
}

/** `finance/rulePage_lc`: the flexible fund's rules. */
export function RuleLcPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Page title={t(titleKey)} back>
      <section className="card">
        <ol className="wealth-rules" data-testid="wealth-rules">
          {(['lc1', 'lc2', 'lc3', 'lc4', 'rule1', 'rule5'] as const).map((k) => (
            <li key={k}>{t(`finance.${k}`)}</li>
          ))}
        </ol>
      </section>
    </Page>
  );
}
