import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { walletApi, type Transfer } from '../../../../api/wallet';
import { Empty, Skeleton } from '../../../../components/feedback';
import { Page } from '../../../../components/page';
import { formatTime } from '../../../../components/format';

/** Transfers between the user's accounts, newest first. */
export function TransferRecordPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [items, setItems] = useState<Transfer[] | null>(null);
  useEffect(() => void walletApi.history().then((p) => setItems(p.items), () => setItems([])), []);
  return (
    <Page title={t(titleKey)}>
      <section className="card">
        {items === null ? (
          <Skeleton rows={4} />
        ) : items.length === 0 ? (
          <Empty />
        ) : (
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
      </section>
    </Page>
  );
}
