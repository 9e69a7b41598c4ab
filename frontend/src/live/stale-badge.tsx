import { useTranslation } from 'react-i18next';
import type { LiveStatus } from './live.store';

/** Shown while the socket is down: what is on screen may be out of date. */
export function StaleBadge({ status }: { status: LiveStatus }) {
  const { t } = useTranslation();
  if (status !== 'offline') return null;
  return (
    <p className="stale-badge" role="status" data-testid="stale-badge">
      <span aria-hidden="true">⚠ </span>
      {t('live.stale')}
    </p>
  );
}
