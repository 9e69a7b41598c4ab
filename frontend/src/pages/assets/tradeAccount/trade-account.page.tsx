import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { accountParam, walletApi, type AccountType, type WalletDetail } from '../../../api/wallet';
import { PATHS } from '../../../app/paths';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Switch } from '../../../components/form';
import { amountText, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { useLoaded } from '../../../components/use-loaded';
import { usePaged } from '../../../components/use-paged';
import { useLive, useLiveStore } from '../../../live/live.store';
import { StaleBadge } from '../../../live/stale-badge';
import { LedgerList } from '../ledger-list';
import { isSmall, useHideSmall, useWallet } from '../use-wallet';

/**
 * One account's coins (`?account=coin|option|lever|trust`, pull-down refresh from the layout); with
 * `&currency_id=` the asset detail: available, frozen and its ledger.
 */
export function TradeAccountPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const account = accountParam(params.get('account')) ?? 'coin';
  const currencyId = Number(params.get('currency_id')) || null;
  return currencyId ? <AssetDetail account={account} currencyId={currencyId} /> : <AccountCoins account={account} titleKey={titleKey} t={t} />;
}

function AccountCoins({ account, titleKey, t }: { account: AccountType; titleKey: string; t: (k: string, o?: Record<string, unknown>) => string }) {
  const { wallet, failed, reload, status } = useWallet();
  const hide = useHideSmall((s) => s.hide);
  const setHide = useHideSmall((s) => s.set);
  const acc = wallet?.accounts.find((a) => a.account === account);
  const items = acc?.items.filter((i) => !hide || !isSmall(i, wallet!.pricing.rate)) ?? [];
  return (
    <Page title={account === 'coin' ? t(titleKey) : t(`assets.account.${account}`)}>
      <StaleBadge status={status} />
      {failed ? (
        <LoadFailed onRetry={() => void reload()} />
      ) : !wallet || !acc ? (
        <Skeleton rows={4} height={56} />
      ) : (
        <>
          <section className="card">
            <p className="muted">{t('assets.accountValue', { code: wallet.pricing.code })}</p>
            <strong className="num" style={{ fontSize: 24 }} data-testid="account-value">
              {wallet.pricing.symbol} {truncate(acc.total_value, 2)}
            </strong>
            <Switch label={t('assets.hideSmall')} checked={hide} onChange={setHide} />
          </section>
          <section className="card" aria-label={t('assets.coins')}>
            {items.length === 0 ? (
              <Empty />
            ) : (
              <ul className="list" data-testid="coin-list">
                {items.map((i) => (
                  <li key={i.currency_id}>
                    <Link className="coin-row" to={`${PATHS.tradeAccount}?account=${account}&currency_id=${i.currency_id}`} data-testid={`coin-${i.symbol}`}>
                      <strong>{i.symbol}</strong>
                      <span className="num" data-testid="coin-total">{amountText(i.total)}</span>
                      <small>
                        {t('trade.available')} <span className="num" data-testid="coin-available">{amountText(i.available)}</span> · {t('assets.frozen')} <span className="num" data-testid="coin-frozen">{amountText(i.frozen)}</span>
                      </small>
                      <small className="num">≈ {wallet.pricing.symbol} {truncate(i.value, 2)}</small>
                    </Link>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </Page>
  );
}

const transferRoutes = () => walletApi.transferOptions(true);

/** How many ledger lines a page of `wallet/detail` holds. */
const DETAIL_LINES = 20;

/**
 * One coin of one account: its balances and its ledger, 20 lines at a time. A balance push or a
 * resync reads the first page again: the balances are updated and new lines go on top of those shown.
 */
function AssetDetail({ account, currencyId }: { account: AccountType; currencyId: number }) {
  const { t } = useTranslation();
  const [detail, setDetail] = useState<WalletDetail | null>(null);
  // Bound to the user's socket while shown (the coin list that leads here is unmounted by then).
  const { resync } = useLive();
  const balanceVersion = useLiveStore((s) => s.balanceVersion);
  const ledger = usePaged((page: number) => walletApi.detail(account, currencyId, page).then((d) => ({ ...d.log, detail: d })), DETAIL_LINES, {
    idOf: (l) => l.id,
    onPage: (p) => setDetail(p.detail),
  });
  const { restart, refresh } = ledger;
  // Transfer only for a coin that can move between the accounts (else the transfer screen opened on another coin).
  const { data: moves } = useLoaded(transferRoutes);
  const transferable = moves?.currencies.some((c) => c.currency_id === currencyId && c.routes.length > 0) ?? false;
  useEffect(() => {
    setDetail(null);
    restart();
  }, [account, currencyId, restart]);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else refresh();
  }, [balanceVersion, resync, refresh]);
  return (
    <Page title={detail ? t('assets.detailTitle', { symbol: detail.symbol }) : t('assets.detail')}>
      {!detail ? (
        ledger.failed ? (
          <LoadFailed onRetry={ledger.reload} />
        ) : (
          <Skeleton rows={4} />
        )
      ) : (
        <>
          <section className="card">
            <p className="muted">{t(`assets.account.${account}`)}</p>
            <strong className="num" style={{ fontSize: 24 }}>
              {amountText(detail.total)} {detail.symbol}
            </strong>
            <dl className="rows">
              <div>
                <dt>{t('trade.available')}</dt>
                <dd className="num" data-testid="detail-available">{amountText(detail.available)}</dd>
              </div>
              <div>
                <dt>{t('assets.frozen')}</dt>
                <dd className="num" data-testid="detail-frozen">{amountText(detail.frozen)}</dd>
              </div>
            </dl>
            {account === 'coin' && (
              <div className="button-row">
                <Link className="button" to={`${PATHS.deposit}?currency_id=${currencyId}`}>{t('menu.deposit')}</Link>
                <Link className="button" to={`${PATHS.withdraw}?currency_id=${currencyId}`}>{t('menu.withdraw')}</Link>
                {transferable && (
                  <Link className="button" to={`${PATHS.transfer}?currency_id=${currencyId}`} data-testid="detail-transfer">
                    {t('titles.transfer')}
                  </Link>
                )}
              </div>
            )}
          </section>
          <section className="card" aria-labelledby="ledger-title">
            <h2 id="ledger-title" className="card__title">{t('assets.ledger')}</h2>
            <PagedList list={ledger}>{(lines) => <LedgerList lines={lines} />}</PagedList>
          </section>
        </>
      )}
    </Page>
  );
}
