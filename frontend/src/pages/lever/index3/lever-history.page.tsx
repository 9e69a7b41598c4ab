import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { leverApi } from '../../../api/derivatives';
import { Segmented } from '../../../components/form';
import { amountText, formatTime, priceDecimals, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { usePaged } from '../../../components/use-paged';
import { FeeAndType, PnL, Side } from '../index/position-parts';
import { LeverAuditView } from './lever-audit';

type Tab = 'closed' | 'cancelled';
const LIMIT = 50;

/** Contract history (`lever/index3`): closed positions with the close reason and P/L, cancelled limit orders, 50 at a time. */
export function LeverHistoryPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [tab, setTab] = useState<Tab>('closed');
  const list = usePaged((page: number) => leverApi.list(tab, page, LIMIT), LIMIT, { idOf: (p) => p.id });
  const { restart } = list;
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => restart(), [tab, restart]);
  return (
    <Page title={t(titleKey)}>
      <Segmented
        label={t('lever.history')}
        value={tab}
        onChange={setTab}
        options={[
          { value: 'closed', label: t('lever.status.closed') },
          { value: 'cancelled', label: t('lever.status.cancelled') },
        ]}
      />
      <section className="card">
        <PagedList list={list}>
          {(items) => (
            <ul className="orders" data-testid="lever-history">
              {items.map((p) => {
                const pd = priceDecimals(p.open_price ?? p.target_price);
                return (
                  <li key={p.id} className="order" data-testid="lever-history-row">
                    <div className="order__head">
                      <Side side={p.side} lots={p.lots} multiple={p.multiple} />
                      {p.status === 'closed' && <PnL value={p.pnl} />}
                    </div>
                    <p className="muted small">
                      {p.symbol} · {formatTime(p.closed_at ?? p.created_at)}
                    </p>
                    <dl className="order__grid">
                      <div>
                        <dt>{t('lever.openPrice')}</dt>
                        <dd className="num">{truncate(p.open_price ?? p.target_price, pd)}</dd>
                      </div>
                      <div>
                        <dt>{t('lever.closePrice')}</dt>
                        <dd className="num">{truncate(p.close_price, pd)}</dd>
                      </div>
                      <div>
                        <dt>{t('lever.reason')}</dt>
                        <dd data-testid="close-reason">
                          {p.status === 'cancelled' ? t('lever.status.cancelled') : p.close_reason ? t(`lever.closeReason.${p.close_reason}`) : '--'}
                        </dd>
                      </div>
                      <div>
                        <dt>{t('lever.margin')}</dt>
                        <dd className="num">{amountText(p.margin)} USDT</dd>
                      </div>
                      <FeeAndType fee={p.fee} type={p.type} testId="history-fee" />
                    </dl>
                    {p.status === 'closed' && (
                      <button
                        type="button"
                        className="button button--block audit__toggle"
                        aria-expanded={open === p.id}
                        aria-controls={`audit-${p.id}`}
                        onClick={() => setOpen(open === p.id ? null : p.id)}
                        data-testid="audit-toggle"
                      >
                        {t('integrity.audit.toggle')}
                      </button>
                    )}
                    {open === p.id && <LeverAuditView positionId={p.id} />}
                  </li>
                );
              })}
            </ul>
          )}
        </PagedList>
      </section>
    </Page>
  );
}
