import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

const THRESHOLD = 64;

/**
 * Pull-down refresh (spec §2: option details2, notices, trade account). Pulling from the top of
 * the page past 64 px and releasing calls `onRefresh`; the hint text says what will happen.
 */
export function PullRefresh({ onRefresh, children }: { onRefresh: () => Promise<void> | void; children: ReactNode }) {
  const { t } = useTranslation();
  const [pull, setPull] = useState(0);
  const [busy, setBusy] = useState(false);
  const start = useRef<number | null>(null);

  const onStart = (e: React.TouchEvent) => {
    start.current = window.scrollY <= 0 && !busy ? e.touches[0].clientY : null;
  };
  const onMove = (e: React.TouchEvent) => {
    if (start.current === null) return;
    setPull(Math.max(0, Math.min(120, e.touches[0].clientY - start.current)));
  };
  const onEnd = async () => {
    const ready = pull >= THRESHOLD;
    start.current = null;
    setPull(0);
    if (!ready) return;
    setBusy(true);
    try {
      await onRefresh();
    } finally {
      setBusy(false);
    }
  };
  const hint = busy ? t('common.refreshing') : pull >= THRESHOLD ? t('common.releaseToRefresh') : t('common.pullToRefresh');
  return (
    <div className="pull-refresh" onTouchStart={onStart} onTouchMove={onMove} onTouchEnd={onEnd} data-testid="pull-refresh">
      <div className="pull-refresh__hint" style={{ height: busy ? 40 : pull / 2 }} aria-live="polite">
        {(busy || pull > 0) && hint}
      </div>
      {children}
    </div>
  );
}
