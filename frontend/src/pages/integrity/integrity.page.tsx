import { OPERATOR_ACTIONS, OPERATOR_AREAS, type OperatorAction, type OperatorArea } from '@kestrel/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../app/paths';
import { Icon } from '../../components/icons';
import { Page } from '../../components/page';

const GUARANTEES = ['ticks', 'operators', 'balances', 'liabilities', 'maker'] as const;

/** The action's path without the `/api/admin` prefix, as a short technical label. */
const shortRoute = (a: OperatorAction) => a.route.replace(' /api/admin/', ' ');

/**
 * The integrity page (issue "Verifiable honesty", item 4): what we guarantee, how to check each
 * guarantee, and every operator action with the events it records and its reason rule. The list
 * is the typed constant in contracts (kept in sync with the server's code by a backend test).
 */
export function IntegrityPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const byArea = new Map<OperatorArea, OperatorAction[]>(OPERATOR_AREAS.map((a) => [a, OPERATOR_ACTIONS.filter((x) => x.area === a)]));
  return (
    <Page title={t(titleKey)}>
      <section className="card">
        <p className="integrity__intro">{t('integrity.page.intro')}</p>
        <Link className="button button--primary button--block" to={PATHS.proof} data-testid="integrity-proof-link">
          {t('integrity.page.openProof')}
        </Link>
      </section>

      <section className="card" aria-labelledby="guarantees-title">
        <h2 id="guarantees-title" className="card__title">
          {t('integrity.page.guaranteesTitle')}
        </h2>
        <ol className="integrity__guarantees" data-testid="integrity-guarantees">
          {GUARANTEES.map((g) => (
            <li key={g}>
              <h3>{t(`integrity.page.g.${g}.title`)}</h3>
              <p>{t(`integrity.page.g.${g}.text`)}</p>
              <p className="muted small">
                <strong>{t('integrity.page.howToCheck')}</strong> {t(`integrity.page.g.${g}.check`)}
              </p>
            </li>
          ))}
        </ol>
      </section>

      <section className="card" aria-labelledby="operators-title">
        <h2 id="operators-title" className="card__title">
          {t('integrity.page.operatorTitle')}
        </h2>
        <p className="muted small">{t('integrity.page.operatorText')}</p>
        <div data-testid="operator-actions">
          {[...byArea].map(([area, actions]) =>
            actions.length === 0 ? null : (
              <details key={area} className="integrity__area">
                <summary>
                  <span>{t(`integrity.page.area.${area}`)}</span>
                  <span className="muted small num">{actions.length}</span>
                </summary>
                <ul className="integrity__actions">
                  {actions.map((a) => (
                    <li key={a.route}>
                      <code className="small">{shortRoute(a)}</code>
                      <div className="small">
                        {a.events.length
                          ? a.events.map((e, i) => (
                              <span key={e}>
                                {i > 0 && ', '}
                                <code>{e}</code>
                              </span>
                            ))
                          : t('integrity.page.noEvent')}
                      </div>
                      <div className="muted small">
                        {t(`integrity.page.reason.${a.reason}`)}
                        {a.balances ? ` · ${t('integrity.page.balances')}` : ''}
                      </div>
                    </li>
                  ))}
                </ul>
              </details>
            ),
          )}
        </div>
        <p className="muted small">{t('integrity.page.noPersonal')}</p>
      </section>

      <section className="card">
        <ul className="list">
          <li>
            <Link className="list__item" to={PATHS.proof}>
              <span>{t('titles.proof')}</span>
              <Icon name="chevron" size={18} />
            </Link>
          </li>
          <li>
            <Link className="list__item" to={PATHS.lever3}>
              <span>{t('integrity.page.contractAudits')}</span>
              <Icon name="chevron" size={18} />
            </Link>
          </li>
          <li>
            <Link className="list__item" to={PATHS.optionDetails2}>
              <span>{t('integrity.page.optionAudits')}</span>
              <Icon name="chevron" size={18} />
            </Link>
          </li>
        </ul>
      </section>
    </Page>
  );
}
