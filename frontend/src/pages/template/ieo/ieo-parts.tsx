import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { unanswered } from '../../../api/client';
import { newcoinApi, type IeoProject, type IeoState } from '../../../api/newcoin';
import { formatTime, truncate } from '../../../components/format';
import './ieo.css';

/** The current time, ticking every second (live countdowns). */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** "2d 03:04:05" (or "03:04:05") for a number of milliseconds. */
export function useDuration() {
  const { t } = useTranslation();
  return (ms: number) => {
    const s = Math.max(0, Math.floor(ms / 1000));
    const d = Math.floor(s / 86400);
    const hms = [Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, '0')).join(':');
    return d > 0 ? t('ieo.days', { days: d, clock: hms }) : hms;
  };
}

/** The project id of the screen (`?id=`), or undefined. */
export function projectIdOf(search: URLSearchParams): number | undefined {
  const id = Number(search.get('id'));
  return Number.isInteger(id) && id > 0 ? id : undefined;
}

/**
 * One project, live: reloaded when its window opens or closes, and every few seconds while it
 * waits for its allocation (state `ended`), so the result shows as soon as it is published.
 */
export function useProject(id: number | undefined) {
  const [project, setProject] = useState<IeoProject | null | undefined>(undefined);
  // A first load with no answer (not a refusal): the screen offers a retry, not "not found".
  const [failed, setFailed] = useState(false);
  const load = useCallback(() => {
    if (!id) return setProject(null);
    setFailed(false);
    newcoinApi.project(id).then(setProject, (err: unknown) => {
      if (unanswered(err)) setFailed(true);
      else setProject((p) => p ?? null);
    });
  }, [id]);
  useEffect(load, [load]);
  const now = useNow();
  const [loadedAt, setLoadedAt] = useState(Date.now());
  useEffect(() => setLoadedAt(Date.now()), [project]);
  useEffect(() => {
    if (!project) return;
    const boundary = project.state === 'upcoming' ? project.seconds_to_start : project.state === 'active' ? project.seconds_to_end : 0;
    const waiting = project.state === 'ended' && now - loadedAt >= 3000;
    if (waiting || (boundary > 0 && now - loadedAt >= boundary * 1000 + 1000)) load();
  }, [now, project, loadedAt, load]);
  return { project, failed: failed && project === undefined, reload: load, now, loadedAt };
}

export function StateBadge({ state }: { state: IeoState }) {
  const { t } = useTranslation();
  return (
    <span className={`ieo-state ieo-state--${state}`} data-testid="ieo-state" data-state={state}>
      {t(`ieo.state.${state}`)}
    </span>
  );
}

/** Starts in / ends in, counting down from the project's answer. */
export function ProjectCountdown({ project, loadedAt, now }: { project: IeoProject; loadedAt: number; now: number }) {
  const { t } = useTranslation();
  const duration = useDuration();
  const left = (seconds: number) => duration(seconds * 1000 - (now - loadedAt));
  if (project.state === 'upcoming')
    return (
      <span className="ieo-countdown" role="timer" aria-live="off" data-testid="ieo-countdown">
        {t('ieo.startsIn', { time: left(project.seconds_to_start) })}
      </span>
    );
  if (project.state === 'active')
    return (
      <span className="ieo-countdown" role="timer" aria-live="off" data-testid="ieo-countdown">
        {t('ieo.endsIn', { time: left(project.seconds_to_end) })}
      </span>
    );
  if (project.state === 'ended') return <span className="ieo-countdown">{t('ieo.allocating')}</span>;
  return null;
}

/** The project's terms as the spec lists them (issue price, total issued, purchase currency, cycle, end time, limits). */
export function ProjectTerms({ project }: { project: IeoProject }) {
  const { t } = useTranslation();
  const d = project.decimals;
  return (
    <dl className="rows">
      <div>
        <dt>{t('ieo.price')}</dt>
        <dd className="num" data-testid="ieo-price">
          {project.price} {project.currency}
        </dd>
      </div>
      <div>
        <dt>{t('ieo.supply')}</dt>
        <dd className="num">
          {truncate(project.supply, d)} {project.symbol}
        </dd>
      </div>
      <div>
        <dt>{t('ieo.currency')}</dt>
        <dd>{project.currency}</dd>
      </div>
      <div>
        <dt>{t('ieo.cycle')}</dt>
        <dd className="num small ieo-cycle">
          <span>{formatTime(project.start_at)} –</span>
          <span>{formatTime(project.end_at)}</span>
        </dd>
      </div>
      <div>
        <dt>{t('ieo.limits')}</dt>
        <dd className="num">{t('ieo.limitsValue', { min: truncate(project.min_qty, d), max: truncate(project.max_qty, d), symbol: project.symbol })}</dd>
      </div>
    </dl>
  );
}
