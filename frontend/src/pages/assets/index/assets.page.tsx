import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { ACCOUNTS } from '../../../api/wallet';
import { PATHS } from '../../../app/paths';
import { LoadFailed, Skeleton } from '../../../components/feedback';
import { Switch } from '../../../components/form';
import { Icon } from '../../../components/icons';
import { truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { StaleBadge } from '../../../live/stale-badge';
import { useHideSmall, useWallet } from '../use-wallet';

/** Assets: the total in the pricing currency, hide small coins, the four accounts, shortcuts. */
export function AssetsPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { wallet, failed, reload, status } = useWallet();
  const hide = useHideSmall((s) => s.hide);
  const setHide = useHideSmall((s) => s.set);
  return (
    <Page title={t(titleKey)} back={false} right={<Link className="icon-button" to={PATHS.assetsRecord} aria-label={t('titles.assetsRecord')}><Icon name="clock" /></Link>}>
      <StaleBadge status={status} />
      {failed ? (
        <LoadFailed onRetry={() => void reload()} />
      ) : !wallet ? (
        <Skeleton rows={5} height={64} />
      ) : (
        <>
          <section className="total-card" aria-labelledby="total-title">
            <p id="total-title">{t('assets.totalValue', { code: wallet.pricing.code })}</p>
            <strong className="num" data-testid="total-value">
              {wallet.pricing.symbol} {truncate(wallet.total_value, 2)}
            </strong>
            <Link to={PATHS.rate} className="small" style={{ color: '#fff' }}>
              {t('assets.changePricing')}
            </Link>
            <div className="button-row">
              <Link className="button" to={PATHS.deposit}>{t('menu.deposit')}</Link>
              <Link className="button" to={PATHS.withdraw}>{t('menu.withdraw')}</Link>
              <Link className="button" to={PATHS.transfer}>{t('titles.transfer')}</Link>
            </div>
          </section>
          <section className="card">
            <Switch label={t('assets.hideSmall')} checked={hide} onChange={setHide} />
          </section>
          <section className="card" aria-labelledby="accounts-title">
            <h2 id="accounts-title" className="card__title">{t('assets.accounts')}</h2>
            <ul className="list">
              {ACCOUNTS.map((a) => {
                const acc = wallet.accounts.find((x) => x.account === a);
                return (
                  <li key={a}>
                    <Link className="list__item list__item--tall" to={`${PATHS.tradeAccount}?account=${a}`} data-testid={`account-${a}`}>
                      <span>
                        <strong>{t(`assets.account.${a}`)}</strong>
                        <small className="muted block">{t('assets.coinsHeld', { n: acc?.items.filter((i) => i.total !== '0' && !/^0(\.0+)?$/.test(i.total)).length ?? 0 })}</small>
                      </span>
                      <span className="list__value num">
                        {wallet.pricing.symbol} {truncate(acc?.total_value ?? '0', 2)}
                      </span>
                      <Icon name="chevron" size={18} />
                    </Link>
                  </li>
                );
              })}
            </ul>
          </section>
          <section className="card">
            <ul className="list">
              <li><Link className="list__item" to={PATHS.assetsRecord}><span>{t('titles.assetsRecord')}</span><Icon name="chevron" size={18} /></Link></li>
              <li><Link className="list__item" to={`${PATHS.assetsRecord}?tab=ledger`}><span>{t('assets.ledger')}</span><Icon name="chevron" size={18} /></Link></li>
              <li><Link className="list__item" to={PATHS.transferRecord}><span>{t('titles.transferRecord')}</span><Icon name="chevron" size={18} /></Link></li>
              <li><Link className="list__item" to={PATHS.fpjy}><span>{t('titles.fpjy')}</span><Icon name="chevron" size={18} /></Link></li>
              <li><Link className="list__item" to={PATHS.proof} data-testid="assets-proof"><span>{t('titles.proof')}</span><Icon name="chevron" size={18} /></Link></li>
            </ul>
          </section>
        </>
      )}
    </Page>
  );
}
