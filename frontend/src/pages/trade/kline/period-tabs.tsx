import type { Period } from '@kestrel/contracts';
import { useTranslation } from 'react-i18next';
import { PERIODS } from './kline-chart';

/** The K-line periods (spec §2): time-share, 1, 5, 30, 60 min, 1 day, 1 week, 1 month. */
export function PeriodTabs({ value, onChange }: { value: Period; onChange: (p: Period) => void }) {
  const { t } = useTranslation();
  return (
    <div className="periods" role="radiogroup" aria-label={t('trade.period')}>
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
