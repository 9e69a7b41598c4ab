import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import type { Page as ListPage } from '../../../api/trading';
import { walletApi, type FundingRecord, type LedgerLine } from '../../../api/wallet';
import { PATHS } from '../../../app/paths';
import { Empty, Skeleton } from '../../../components/feedback';
import { Segmented, SelectField } from '../../../components/form';
import { Page } from '../../../components/page';
import { LedgerList } from '../ledger-list';
import { amountText, formatTime } from '../../../components/format';
import { PagedList } from '../../../components/paged-list';
import { usePaged } from '../../../components/use-paged';

type Tab = 'deposit' | 'withdraw' | 'ledger';
const LIMIT = 50;
/** The ledger codes a user meets (docs/api.md "Ledger codes"), for the type filter. */
export const LEDGER_CODES = ['200', '101', '502', '503', '500', '501', '600', '601', '602', '901', '902', '400', '401', '402', '103', '800', '801', '802', '700', '701', '702', '905', '40', '41', '903', '904', '20', '21', '22', '30', '900'] as const;

/** Records: deposits, withdrawals (side menu "deposit/withdraw records") and the ledger by type code. */
export function RecordPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab = (['deposit', 'withdraw', 'ledger'].includes(params.get('tab') ?? '') ? params.get('tab') : 'deposit') as Tab;
  const [code, setCode] = useState<string>('all');
  // One list a page at a time: another tab or type reads page 1 again (a page still on its way for the one before is dropped).
  const list = usePaged<ListPage<FundingRecord | LedgerLine>>(
    (page) =>
      tab === 'ledger'
        ? walletApi.log({ code: code === 'all' ? undefined : Number(code), page, limit: LIMIT })
        : tab === 'deposit'
          ? walletApi.deposits(page, LIMIT)
          : walletApi.withdrawals(page, LIMIT),
    LIMIT,
    { idOf: (item) => item.id },
  );
  const { restart } = list;
  useEffect(() => restart(), [tab, code, restart]);
  const body = (
    <PagedList list={list} skeleton={<Skeleton rows={4} />}>
      {(items) => (tab === 'ledger' ? <LedgerList lines={items as LedgerLine[]} /> : <FundingRecords records={items as FundingRecord[]} kind={tab} />)}
    </PagedList>
  );
  return (
    <Page title={t(titleKey)}>
      <Segmented
        label={t('assets.recordType')}
        value={tab}
        onChange={(v) => setParams({ tab: v }, { replace: true })}
        options={[
          { value: 'deposit', label: t('menu.deposit') },
          { value: 'withdraw', label: t('menu.withdraw') },
          { value: 'ledger', label: t('assets.ledger') },
        ]}
      />
      {tab === 'ledger' ? (
        <section className="card">
          <SelectField
            label={t('assets.ledgerType')}
            value={code}
            onChange={setCode}
            options={[{ value: 'all', label: t('trade.status.all') }, ...LEDGER_CODES.map((c) => ({ value: c, label: `${t(`ledgerCodes.c${c}`)} (${c})` }))]}
          />
          {body}
        </section>
      ) : (
        <section className="card">{body}</section>
      )}
    </Page>
  );
}

/** Deposit or withdrawal records with their review state (and a rejection's reason). */
export function FundingRecords({ records, kind }: { records: FundingRecord[]; kind: 'deposit' | 'withdraw' }) {
  const { t } = useTranslation();
  if (!records.length) return <Empty />;
  return (
    <ul className="list" data-testid={`${kind}-records`}>
      {records.map((r) => (
        <li key={r.id} className="record">
          <RecordHead to={kind === 'withdraw' ? `${PATHS.withdrawDetail}?id=${r.id}` : undefined}>
            <strong className="num">
              {r.amount} {r.symbol} <span className="muted small">{r.chain}</span>
            </strong>
            <span className={`status status--${r.status}`} data-testid="record-status">
              {t(`funding.status.${r.status}`)}
            </span>
          </RecordHead>
          {/* A deposit under review has no fee or credited amount yet (the operator sets them on approval): not "You receive 0". */}
          {!(kind === 'deposit' && r.status === 'review') && (
            <div className="muted small" data-testid="record-amounts">
              {t('funding.fee')} {amountText(r.fee)} · {t('funding.receive')} {amountText(r.actual_amount)} {r.symbol}
            </div>
          )}
          <div className="muted small">{formatTime(r.created_at)}</div>
          {r.status === 'rejected' && r.reason && (
            <p className="small" data-testid="record-reason">
              {t('funding.reason', { reason: r.reason })}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

/** A record's first line: a link to its detail where it has one (a withdrawal), else plain. */
function RecordHead({ to, children }: { to?: string; children: ReactNode }) {
  return to ? (
    <Link to={to} className="record__head" style={{ color: 'inherit', textDecoration: 'none', minHeight: 44 }}>
      {children}
    </Link>
  ) : (
    <div className="record__head">{children}</div>
  );
}
