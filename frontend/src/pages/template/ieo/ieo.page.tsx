import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { newcoinApi, type IeoProject, type IeoState } from '../../../api/newcoin';
import { PATHS } from '../../../app/paths';
import { Empty, Skeleton } from '../../../components/feedback';
import { FilterTabs } from '../../../components/form';
import { formatTime, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { ProjectCountdown, StateBadge, useNow } from './ieo-parts';

const FILTERS: Array<'all' | IeoState> = ['all', 'active', 'upcoming', 'ended'];

/** `template/ieo`: the new-coin projects, by state, each with its live countdown. */
export function IeoPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [projects, setProjects] = useState<IeoProject[] | null>(null);
  const [filter, setFilter] = useState<'all' | IeoState>('all');
  const [loadedAt, setLoadedAt] = useState(Date.now());
  const now = useNow();
  const load = useCallback(() => {
    newcoinApi.list().then(
      (list) => {
        setProjects(list);
        setLoadedAt(Date.now());
      },
      () => setProjects((p) => p ?? []),
    );
  }, []);
  useEffect(load, [load]);
  // A window opening or closing changes a state: reload then (and every 5 s while one awaits its allocation).
  useEffect(() => {
    if (!projects) return;
    const elapsed = now - loadedAt;
    const due = projects.some(
      (p) =>
        (p.state === 'upcoming' && elapsed >= p.seconds_to_start * 1000 + 1000) ||
        (p.state === 'active' && elapsed >= p.seconds_to_end * 1000 + 1000) ||
        (p.state === 'ended' && elapsed >= 5000),
    );
    if (due) load();
  }, [now, projects, loadedAt, load]);
  const shown = projects?.filter((p) => filter === 'all' || p.state === filter || (filter === 'ended' && p.state === 'distributed'));
  return (
    <Page title={t(titleKey)}>
      <FilterTabs label={t('ieo.filter')} value={filter} options={FILTERS.map((f) => ({ value: f, label: t(`ieo.tabs.${f}`) }))} onChange={setFilter} />
      {!shown ? (
        <Skeleton rows={3} height={120} />
      ) : shown.length === 0 ? (
        <section className="card">
          <Empty />
        </section>
      ) : (
        <ul className="ieo-list" data-testid="ieo-list">
          {shown.map((p) => (
            <li key={p.id} className="card" data-testid="ieo-project" data-symbol={p.symbol}>
              <div className="ieo-card__head">
                <div className="ieo-card__name">
                  <strong>{p.symbol}</strong>
                  <span className="muted small">{p.name}</span>
                </div>
                <StateBadge state={p.state} />
              </div>
              <dl className="rows rows--compact">
                <div>
                  <dt>{t('ieo.price')}</dt>
                  <dd className="num">
                    {p.price} {p.currency}
                  </dd>
                </div>
                <div>
                  <dt>{t('ieo.supply')}</dt>
                  <dd className="num">{truncate(p.supply, p.decimals)}</dd>
                </div>
                <div>
                  <dt>{t('ieo.endTime')}</dt>
                  <dd className="num small">{formatTime(p.end_at)}</dd>
                </div>
              </dl>
              <ProjectCountdown project={p} loadedAt={loadedAt} now={now} />
              <div className="ieo-actions">
                <Link className="button" to={`${PATHS.ieoDetails}?id=${p.id}`} data-testid="ieo-details-link">
                  {t('ieo.details')}
                </Link>
                {p.state === 'active' ? (
                  <Link className="button button--primary" to={`${PATHS.ieoBuy}?id=${p.id}`} data-testid="ieo-subscribe-link">
                    {t('ieo.subscribe')}
                  </Link>
                ) : (
                  <span className="button" aria-disabled="true">
                    {t(`ieo.state.${p.state}`)}
                  </span>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}
