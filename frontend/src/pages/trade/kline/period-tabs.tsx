import type { Period } from '@kestrel/contracts';
import { useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

export const PERIODS: Period[] = ['time-share', '1min', '5min', '30min', '60min', '1day', '1week', '1mon'];

/**
 * The K-line periods (spec §2): time-share, 1, 5, 30, 60 min, 1 day, 1 week, 1 month. Where they do
 * not fit on one line (longer labels, a narrow phone) the row scrolls sideways, and its right edge
 * fades while more periods lie beyond it (`periods--more`), so the cut-off ones are not missed.
 */
export function PeriodTabs({ value, onChange }: { value: Period; onChange: (p: Period) => void }) {
  const { t, i18n } = useTranslation();
  const row = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState(false);
  useLayoutEffect(() => {
    const el = row.current!;
    const check = () => setMore(el.scrollLeft + el.clientWidth < el.scrollWidth - 1);
    check();
    el.addEventListener('scroll', check, { passive: true });
    window.addEventListener('resize', check);
    return () => {
      el.removeEventListener('scroll', check);
      window.removeEventListener('resize', check);
    };
  }, [i18n.language]);
  return (
    <div ref={row} className={`periods${more ? ' periods--more' : ''}`} role="radiogroup" aria-label={t('trade.period')}>
      {PERIODS.map((p) => (
        <button
          key={p}
          type="button"
          role="radio"
          aria-checked={value === p}
          className={value === p ? 'is-active' : ''}
          onClick={() => onChange(p)}
          data-period={p}
        >
          {t(`trade.periods.${p}`)}
        </button>
      ))}
    </div>
  );
}
