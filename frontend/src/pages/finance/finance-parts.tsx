import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { WealthProduct, WealthReport } from '../../api/finance';
import { PATHS } from '../../app/paths';
import { mul } from '../../components/decimal';
import { truncate } from '../../components/format';
import './finance.css';

/**
 * A rate as a percentage, truncated: "0.1366" → "13.66%". With `minDecimals`, zeros past them are
 * dropped: pct("0.0042", 4, 2) → "0.42%", pct("0.004242", 4, 2) → "0.4242%".
 */
export const pct = (rate: string, decimals = 2, minDecimals = decimals) => {
  const digits = truncate(mul(rate, '100', 8), decimals);
  return `${minDecimals < decimals ? digits.replace(new RegExp(`(\\.\\d{${minDecimals}}\\d*?)0+$`), '$1') : digits}%`;
};

/** The current time, ticking every second (live countdowns). */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** "2d 03:04:05" until `until` (ms). */
export function useDuration() {
  const { t } = useTranslation();
  return (ms: number) => {
    const s = Math.max(0, Math.floor(ms / 1000));
    const d = Math.floor(s / 86400);
    const hms = [Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, '0')).join(':');
    return d > 0 ? `${d}${t('finance.dayUnit')} ${hms}` : hms;
  };
}

export function StatusBadge({ status }: { status: WealthProduct['status'] }) {
  const { t } = useTranslation();
  return (
    <span className={`wealth-badge wealth-badge--${status}`} data-testid="listing-status" data-status={status}>
      {t(`finance.status.${status}`)}
    </span>
  );
}

/** A product's listing card: yield, cycle, minimum, capacity sold, state with a live countdown to its start or end. */
export function ProductCard({ p, loadedAt }: { p: WealthProduct; loadedAt: number }) {
  const { t } = useTranslation();
  const now = useNow();
  const duration = useDuration();
  const startsIn = loadedAt + p.starts_in_seconds * 1000 - now;
  const endsIn = p.ends_in_seconds === null ? null : loadedAt + p.ends_in_seconds * 1000 - now;
  const percent = truncate(mul(p.progress, '100', 4), 2);
  const buyable = (p.status === 'in_progress' || p.status === 'rush') && startsIn <= 0;
  return (
    <li className="wealth-card" data-testid="wealth-product" data-code={p.code}>
      <div className="wealth-card__head">
        <h3>{p.name || t(`finance.kind.${p.kind}`)}</h3>
        <StatusBadge status={startsIn > 0 ? 'soon' : p.status} />
      </div>
      <dl className="rows rows--compact">
        <div>
          <dt>{p.kind === 'flexible' ? t('finance.dailyRate') : t('finance.totalRate')}</dt>
          <dd className="wealth-card__rate num">{p.kind === 'flexible' ? pct(p.daily_rate, 4, 2) : pct(p.total_rate)}</dd>
        </div>
        <div>
          <dt>{p.kind === 'flexible' ? t('finance.accrualMin') : t('finance.dailyRate')}</dt>
          <dd className="num">{p.kind === 'flexible' ? `${truncate(p.accrual_min, 0)} ${p.currency}` : pct(p.daily_rate, 4)}</dd>
        </div>
        {p.kind !== 'flexible' && (
          <div>
            <dt>{t('finance.kind.' + p.kind)}</dt>
            <dd className="num">{t('finance.days', { count: p.days })}</dd>
          </div>
        )}
        <div>
          <dt>{t('finance.minAmount')}</dt>
          <dd className="num">{truncate(p.min_amount, 2)} {p.currency}</dd>
        </div>
      </dl>
      <div className="wealth-progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Number(percent)} aria-label={t('finance.progress', { percent })}>
        <span style={{ width: `${Math.min(100, Number(percent))}%` }} />
      </div>
      <p className="muted small">
        {t('finance.progress', { percent })} · {t('finance.left')} <span className="num">{truncate(p.left, 2)} {p.currency}</span>
        {startsIn > 0 && <> · <span className="num countdown" role="timer">{t('finance.startsIn', { time: duration(startsIn) })}</span></>}
        {startsIn <= 0 && endsIn !== null && endsIn > 0 && <> · <span className="num countdown" role="timer">{t('finance.endsIn', { time: duration(endsIn) })}</span></>}
      </p>
      <div className="wealth-actions">
        {buyable ? (
          <Link className="button button--primary" to={`${PATHS.financeBuy}?id=${p.id}`} data-testid="wealth-buy">
            {t('finance.buy')}
          </Link>
        ) : (
          <button type="button" className="button" disabled>
            {t(`finance.status.${startsIn > 0 ? 'soon' : p.status}`)}
          </button>
        )}
      </div>
    </li>
  );
}

/** Held, earned today, earned in total (lh/deposit/report). */
export function ReportCard({ report }: { report: WealthReport | null }) {
  const { t } = useTranslation();
  return (
    <section className="card" aria-label={t('finance.summary')}>
      <dl className="wealth-summary" data-testid="wealth-report">
        <div>
          <dt>{t('finance.held')}</dt>
          <dd className="num" data-testid="report-held">
            {truncate(report?.held, 2)} <Unit report={report} />
          </dd>
        </div>
        <div>
          <dt>{t('finance.earnedToday')}</dt>
          <dd className="num">
            {truncate(report?.earned_today, 4)} <Unit report={report} />
          </dd>
        </div>
        <div>
          <dt>{t('finance.earnedTotal')}</dt>
          <dd className="num">
            {truncate(report?.earned_total, 4)} <Unit report={report} />
          </dd>
        </div>
      </dl>
    </section>
  );
}

/** The report's currency beside an amount, smaller (the three columns stay narrow). */
function Unit({ report }: { report: WealthReport | null }) {
  return report ? <small className="wealth-summary__unit">{report.currency}</small> : null;
}
