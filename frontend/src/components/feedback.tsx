import { useTranslation } from 'react-i18next';

/** Placeholder rows while data loads. */
export function Skeleton({ rows = 3, height = 44 }: { rows?: number; height?: number }) {
  const { t } = useTranslation();
  return (
    <div className="skeleton" role="status" aria-label={t('common.loading')}>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton__row" style={{ height }} />
      ))}
    </div>
  );
}

/** The empty state: "No data" (spec §8). */
export function Empty({ text }: { text?: string }) {
  const { t } = useTranslation();
  return (
    <div className="empty">
      <svg width="56" height="56" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.2" aria-hidden="true">
        <path d="M3 13l3-8h12l3 8v6H3zM3 13h5l1 2h6l1-2h5" />
      </svg>
      <p>{text ?? t('common.noData')}</p>
    </div>
  );
}

/** A load that failed: says so and offers to try again (not the empty state, which would say there is nothing). */
export function LoadFailed({ onRetry }: { onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="empty" role="alert" data-testid="load-failed">
      <p>{t('common.loadFailed')}</p>
      <button type="button" className="button" onClick={onRetry}>
        {t('common.retry')}
      </button>
    </div>
  );
}
