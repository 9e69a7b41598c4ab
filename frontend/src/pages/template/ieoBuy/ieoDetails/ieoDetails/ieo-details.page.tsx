import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { newcoinApi, type IeoOrderInfo, type IeoProject } from '../../../../../api/newcoin';
import { PATHS } from '../../../../../app/paths';
import { mul } from '../../../../../components/decimal';
import { Empty, LoadFailed, Skeleton } from '../../../../../components/feedback';
import { formatTime, truncate } from '../../../../../components/format';
import { Page } from '../../../../../components/page';
import { useSessionStore } from '../../../../../stores/session.store';
import { ProjectCountdown, ProjectTerms, projectIdOf, StateBadge, useProject } from '../../../ieo/ieo-parts';

/** Published totals (everyone sees the same; no subscriber's amount or identity). */
function Result({ project }: { project: IeoProject }) {
  const { t } = useTranslation();
  const r = project.result;
  const d = project.decimals;
  return (
    <section className="card" aria-labelledby="ieo-result">
      <h2 id="ieo-result" className="card__title">
        {t('ieo.result')}
      </h2>
      {!r ? (
        <p className="muted">{t('ieo.pendingResult')}</p>
      ) : (
        <dl className="rows ieo-result" data-testid="ieo-result">
          <div>
            <dt>{t('ieo.requested')}</dt>
            <dd className="num">
              {truncate(r.requested, d)} {project.symbol}
            </dd>
          </div>
          <div>
            <dt>{t('ieo.supply')}</dt>
            <dd className="num">
              {truncate(r.supply, d)} {project.symbol}
            </dd>
          </div>
          <div>
            <dt>{t('ieo.ratio')}</dt>
            <dd className="num" data-testid="ieo-ratio">
              {truncate(mul(r.ratio, '100', 8), 6)}%
            </dd>
          </div>
          <div>
            <dt>{t('ieo.allocated')}</dt>
            <dd className="num">
              {truncate(r.allocated, d)} {project.symbol}
            </dd>
          </div>
          <div>
            <dt>{t('ieo.refunded')}</dt>
            <dd className="num">
              {truncate(r.refunded, 8)} {project.currency}
            </dd>
          </div>
          <div>
            <dt>{t('ieo.remainder')}</dt>
            <dd className="num">
              {truncate(r.remainder, d)} {project.symbol}
            </dd>
          </div>
        </dl>
      )}
    </section>
  );
}

/** The signed-in user's own request, allocation and refund, and their subscriptions. */
function Mine({ project, info }: { project: IeoProject; info: IeoOrderInfo | null }) {
  const { t } = useTranslation();
  const d = project.decimals;
  if (!info) return <Skeleton rows={3} />;
  const mine = info.mine;
  if (!mine || mine.subscriptions === 0) return <Empty text={t('ieo.none')} />;
  return (
    <>
      <dl className="rows ieo-mine" data-testid="ieo-mine">
        <div>
          <dt>{t('ieo.myRequested')}</dt>
          <dd className="num" data-testid="ieo-my-requested">
            {truncate(mine.requested, d)} {project.symbol}
          </dd>
        </div>
        <div>
          <dt>{t('ieo.myPayment')}</dt>
          <dd className="num">
            {truncate(mine.payment, 8)} {project.currency}
          </dd>
        </div>
        <div>
          <dt>{t('ieo.myAllocation')}</dt>
          <dd className="num" data-testid="ieo-my-allocation">
            {mine.allocation === null ? t('ieo.pendingShort') : `${truncate(mine.allocation, d)} ${project.symbol}`}
          </dd>
        </div>
        <div>
          <dt>{t('ieo.myRefund')}</dt>
          <dd className="num" data-testid="ieo-my-refund">
            {mine.refund === null ? t('ieo.pendingShort') : `${truncate(mine.refund, 8)} ${project.currency}`}
          </dd>
        </div>
      </dl>
      <h3 className="card__title">{t('ieo.records')}</h3>
      <ul className="ieo-list" data-testid="ieo-records">
        {info.items.map((s) => (
          <li key={s.id} className="record" data-testid="ieo-record" data-status={s.status}>
            <div className="record__head">
              <strong className="num">
                {truncate(s.quantity, d)} {s.symbol}
              </strong>
              <span className="ieo-state">{t(`ieo.status.${s.status}`)}</span>
            </div>
            <div className="muted small">{formatTime(s.created_at)}</div>
          </li>
        ))}
      </ul>
    </>
  );
}

/** `template/ieoBuy/ieoDetails/ieoDetails`: the project's details, a countdown, the published result and the user's allocation. */
export function IeoDetailsPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [search] = useSearchParams();
  const id = projectIdOf(search);
  const { project, failed, reload, now, loadedAt } = useProject(id);
  const token = useSessionStore((s) => s.token);
  const [info, setInfo] = useState<IeoOrderInfo | null>(null);
  const state = project?.state;
  useEffect(() => {
    if (!id || !token) return;
    newcoinApi.info(id).then(setInfo, () => undefined);
  }, [id, token, state, project?.result?.distributed_at]);

  if (failed)
    return (
      <Page title={t(titleKey)}>
        <LoadFailed onRetry={reload} />
      </Page>
    );
  if (project === undefined)
    return (
      <Page title={t(titleKey)}>
        <Skeleton rows={6} />
      </Page>
    );
  if (project === null)
    return (
      <Page title={t(titleKey)}>
        <section className="card">
          <Empty text={t('ieo.notFound')} />
        </section>
      </Page>
    );
  return (
    <Page title={t(titleKey)}>
      <section className="card" aria-labelledby="ieo-details-title">
        <div className="ieo-card__head">
          <div className="ieo-card__name">
            <strong id="ieo-details-title">{project.symbol}</strong>
            <span className="muted small">{project.name}</span>
          </div>
          <StateBadge state={project.state} />
        </div>
        <ProjectCountdown project={project} loadedAt={loadedAt} now={now} />
        <ProjectTerms project={project} />
        <dl className="rows ieo-links">
          <div>
            <dt>{t('ieo.website')}</dt>
            <dd>
              {project.website ? (
                <a href={project.website} target="_blank" rel="noreferrer noopener">
                  {project.website}
                </a>
              ) : (
                '--'
              )}
            </dd>
          </div>
          <div>
            <dt>{t('ieo.whitePaper')}</dt>
            <dd>
              {project.white_paper ? (
                <a href={project.white_paper} target="_blank" rel="noreferrer noopener">
                  {t('ieo.open')}
                </a>
              ) : (
                '--'
              )}
            </dd>
          </div>
        </dl>
        {project.intro && <p className="ieo-note">{project.intro}</p>}
        {project.state === 'active' && (
          <Link className="button button--primary button--block" to={`${PATHS.ieoBuy}?id=${project.id}`} data-testid="ieo-subscribe-link">
            {t('ieo.subscribe')}
          </Link>
        )}
        {project.market && (
          <Link className="button button--block" to={`${PATHS.trade}?symbol=${encodeURIComponent(project.market)}`}>
            {t('ieo.trade', { market: project.market })}
          </Link>
        )}
      </section>
      <Result project={project} />
      <section className="card" aria-labelledby="ieo-mine-title">
        <h2 id="ieo-mine-title" className="card__title">
          {t('ieo.mine')}
        </h2>
        {token ? (
          <Mine project={project} info={info} />
        ) : (
          <Link className="button button--block" to={PATHS.login}>
            {t('ieo.login')}
          </Link>
        )}
      </section>
    </Page>
  );
}
