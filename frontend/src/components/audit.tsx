import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Tick } from '../api/derivatives';
import { formatTime } from './format';

/**
 * Pieces of the settlement audit views (contract closes and option deliveries): every figure is
 * the server's decimal string in full, grouped but never rounded, so the user can recompute it.
 */
export function exact(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '--';
  const m = /^([+-]?)(\d+)(\.\d+)?$/.exec(value);
  if (!m) return value;
  return `${m[1] === '-' ? '−' : m[1]}${m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${m[3] ?? ''}`;
}

/** Compares two non-negative decimal strings exactly (no float): −1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  const split = (v: string) => {
    const [i, f = ''] = v.split('.');
    return [i.replace(/^0+(?=\d)/, ''), f.replace(/0+$/, '')] as const;
  };
  const [ai, af] = split(a);
  const [bi, bf] = split(b);
  if (ai.length !== bi.length) return ai.length > bi.length ? 1 : -1;
  const width = Math.max(af.length, bf.length);
  const x = ai + af.padEnd(width, '0');
  const y = bi + bf.padEnd(width, '0');
  return x === y ? 0 : x > y ? 1 : -1;
}

export function tickTime(iso: string): string {
  const d = new Date(iso);
  return `${formatTime(d, 'both', { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** One recorded tick: its id, price and time (to the millisecond). */
export function TickLine({ label, tick, testId }: { label: string; tick: Tick | null; testId: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className="num" data-testid={testId} data-tick-id={tick?.id ?? ''}>
        {tick ? (
          <>
            <span className="audit__tick-id">#{tick.id}</span> · <strong>{exact(tick.price)}</strong>
            <span className="block muted small">{tickTime(tick.time)}</span>
          </>
        ) : (
          '--'
        )}
      </dd>
    </div>
  );
}

/** A formula line with its value. */
export function FormulaLine({ label, value, testId, strong }: { label: string; value: string; testId?: string; strong?: boolean }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className="num" data-testid={testId}>
        {strong ? <strong>{value}</strong> : value}
      </dd>
    </div>
  );
}

export function AuditSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="audit__section">
      <h3 className="audit__heading">{title}</h3>
      <dl className="rows rows--compact">{children}</dl>
    </section>
  );
}

/** The recorded ticks between the two, newest last; a long list folds away. */
export function TickList({ ticks, complete }: { ticks: Tick[]; complete: boolean }) {
  const { t } = useTranslation();
  return (
    <details className="audit__ticks">
      <summary>
        {t('integrity.audit.ticks')} <span className="num">({ticks.length}{complete ? '' : '+'})</span>
      </summary>
      <ol className="audit__tick-list num">
        {ticks.map((x) => (
          <li key={x.id}>
            #{x.id} · {exact(x.price)} · <span className="muted">{tickTime(x.time)}</span>
          </li>
        ))}
      </ol>
    </details>
  );
}

/** The verdict line: the server's recomputation from the recorded ticks agrees with the record. */
export function Verdict({ ok }: { ok: boolean }) {
  const { t } = useTranslation();
  return (
    <p className={`audit__verdict ${ok ? 'is-ok' : 'is-bad'}`} data-testid="audit-verdict" data-ok={ok ? '1' : '0'} role="status">
      <span aria-hidden="true">{ok ? '✓ ' : '✗ '}</span>
      {t(ok ? 'integrity.audit.matches' : 'integrity.audit.differs')}
    </p>
  );
}
