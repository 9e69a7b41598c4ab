import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { TRANSFERS_PAGE, walletApi } from '../../../../api/wallet';
import { Skeleton } from '../../../../components/feedback';
import { Page } from '../../../../components/page';
import { PagedList } from '../../../../components/paged-list';
import { formatTime } from '../../../../components/format';
import { usePaged } from '../../../../components/use-paged';

/** Transfers between the user's accounts, newest first, 50 at a time. */
export function TransferRecordPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const list = usePaged(walletApi.history, TRANSFERS_PAGE, { idOf: (x) => x.transfer_id });
  const { restart } = list;
  useEffect(() => restart(), [restart]);
  return (
    <Page title={t(titleKey)}>
      <section className="card">
        <PagedList list={list} skeleton={<Skeleton rows={4} />}>
          {(items) => (
            <ul className="list" data-testid="transfer-records">
              {items.map((x) => (
                <li key={x.transfer_id} className="record">
                  <div className="record__head">
                    <strong className="num">
                      {x.amount} {x.symbol}
                    </strong>
                    <span>
                      {t(`assets.account.${x.from}`)} → {t(`assets.account.${x.to}`)}
                    </span>
                  </div>
                  <div className="muted small">{formatTime(x.created_at)}</div>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
      </section>
    </Page>
  );
}
