import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { leverApi, type LeverAudit } from '../../../api/derivatives';
import { AuditSection, exact, FormulaLine, TickList, TickLine, Verdict } from '../../../components/audit';
import { Skeleton } from '../../../components/feedback';

const usdt = (v: string) => `${exact(v)} USDT`;

/**
 * The settlement audit of a closed contract position (GET lever/audit): the recorded opening and
 * closing ticks, the formula with this position's numbers, and the recorded result.
 */
export function LeverAuditView({ positionId }: { positionId: string }) {
  const { t } = useTranslation();
  const [audit, setAudit] = useState<LeverAudit | null | 'failed'>(null);
  useEffect(() => {
    leverApi.audit(positionId).then(setAudit, () => setAudit('failed'));
  }, [positionId]);
  if (audit === null) return <Skeleton rows={2} />;
  if (audit === 'failed')
    return (
      <p className="audit muted small" role="alert">
        {t('integrity.audit.failed')}
      </p>
    );
  const v = audit.values;
  const reason = audit.close_reason ?? 'user';
  const ok = Object.values(audit.checks).every(Boolean);
  return (
    <div className="audit" data-testid="lever-audit" id={`audit-${positionId}`}>
      <h3 className="audit__title">{t('integrity.audit.title')}</h3>
      <AuditSection title={t('integrity.audit.ticksTitle')}>
        <TickLine label={t('integrity.audit.openTick')} tick={audit.open_tick} testId="audit-open" />
        <TickLine label={t('integrity.audit.closeTick')} tick={audit.close_tick} testId="audit-close" />
      </AuditSection>
      <TickList ticks={audit.ticks} complete={audit.ticks_complete} />
      <AuditSection title={t('integrity.audit.formula')}>
        <FormulaLine label={t('integrity.audit.notional', { count: audit.lots, lotValue: exact(audit.lot_value) })} value={usdt(v.notional)} />
        <FormulaLine label={t('integrity.audit.margin', { multiple: audit.multiple })} value={usdt(v.margin)} />
        <FormulaLine label={t(audit.side === 'long' ? 'integrity.audit.pnlLong' : 'integrity.audit.pnlShort')} value={usdt(v.pnl)} testId="audit-pnl" />
        <FormulaLine label={t('integrity.audit.credited')} value={usdt(v.credited)} testId="audit-credited" />
        <FormulaLine label={t('integrity.audit.fee')} value={usdt(v.fee)} />
        <FormulaLine label={t('integrity.audit.net')} value={usdt(v.net)} />
      </AuditSection>
      <p className="muted small">{t('integrity.audit.pnlFloor')}</p>
      <AuditSection title={t('integrity.audit.result')}>
        <FormulaLine label={t('integrity.audit.why')} value={t(`lever.closeReason.${reason}`)} />
        <FormulaLine label={t('integrity.audit.recorded')} value={usdt(audit.result.pnl)} testId="audit-result" strong />
      </AuditSection>
      <p className="muted small" data-testid="audit-trigger">
        {t(`integrity.audit.reason.${reason}`, {
          price: exact(reason === 'take_profit' ? audit.take_profit : reason === 'stop_loss' ? audit.stop_loss : v.liquidation_price),
          maintenance: exact(v.maintenance_margin),
        })}
      </p>
      <Verdict ok={ok} />
      <p className="muted small">{t('integrity.audit.public', { id: audit.position_id })}</p>
    </div>
  );
}
