import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { loginPath, PATHS } from '../../../app/paths';
import { Icon } from '../../../components/icons';
import { Page } from '../../../components/page';
import { useSessionStore } from '../../../stores/session.store';
import { useUiStore } from '../../../stores/ui.store';
import { useUnreadNotices } from '../../notice/unread.store';
import { HomeBanner, NoticeStrip } from './home-news';
import { HomeMarkets } from './home-markets';
import { MarketList } from './market-list';

/** The entry grid: every feature of the app, including those the tab bar's other readings put in tabs. */
const ENTRIES = [
  { key: 'deposit', path: PATHS.deposit, icon: 'deposit' },
  { key: 'withdraw', path: PATHS.withdraw, icon: 'withdraw' },
  { key: 'transfer', path: PATHS.transfer, icon: 'trade' },
  { key: 'fpjy', path: PATHS.fpjy, icon: 'flash' },
  { key: 'markets', path: PATHS.market, icon: 'market' },
  { key: 'spot', path: PATHS.trade, icon: 'candles' },
  { key: 'chart', path: PATHS.kline, icon: 'chart' },
  { key: 'contract', path: PATHS.lever2, icon: 'contract' },
  { key: 'options', path: PATHS.optionDetail, icon: 'clock' },
  { key: 'wealth', path: PATHS.template, icon: 'coins' },
  { key: 'flexible', path: PATHS.financeLc, icon: 'percent' },
  { key: 'ieo', path: PATHS.ieo, icon: 'star' },
  { key: 'nft', path: PATHS.nft, icon: 'image' },
  { key: 'loan', path: PATHS.loan, icon: 'banknote' },
  { key: 'promotion', path: PATHS.promotion, icon: 'gift' },
  { key: 'verification', path: PATHS.verification, icon: 'shield' },
  { key: 'notices', path: PATHS.notice, icon: 'bell' },
  { key: 'help', path: PATHS.helpCenter, icon: 'help' },
  { key: 'rate', path: PATHS.rate, icon: 'dollar' },
] as const;

export function HomePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const token = useSessionStore((s) => s.token);
  const location = useLocation();
  const openMenu = useUiStore((s) => s.setMenuOpen);
  const unread = useUnreadNotices();
  return (
    <Page
      title={t(titleKey)}
      left={
        <button type="button" className="icon-button" onClick={() => openMenu(true)} aria-label={t('common.openMenu')} data-testid="open-menu">
          <Icon name="menu" />
        </button>
      }
      right={
        <Link className="icon-button icon-badge" to={PATHS.notice} aria-label={unread ? t('news.unreadLabel', { count: unread }) : t('titles.notice')} data-testid="notice-bell">
          <Icon name="bell" />
          {unread > 0 && (
            <span className="icon-badge__count" data-testid="notice-badge" aria-hidden="true">
              {unread > 99 ? '99+' : unread}
            </span>
          )}
        </Link>
      }
    >
      {!token && (
        <section className="card login-prompt login-prompt--compact" data-testid="login-prompt">
          <p>{t('home.loginPrompt')}</p>
          <div className="button-row">
            <Link className="button button--primary" to={loginPath(location.pathname + location.search)}>
              {t('auth.login')}
            </Link>
            <Link className="button" to={PATHS.choose}>
              {t('auth.register')}
            </Link>
          </div>
        </section>
      )}
      <HomeMarkets />
      <HomeBanner />
      <NoticeStrip />
      <nav className="card" aria-labelledby="features-title">
        <h2 id="features-title" className="card__title">
          {t('home.features')}
        </h2>
        <ul className="entry-grid">
          {ENTRIES.map((e) => (
            <li key={e.key}>
              <Link to={e.path} className="entry">
                <span className="entry__icon">
                  <Icon name={e.icon} />
                </span>
                <span>{t(`home.entries.${e.key}`)}</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <MarketList />
    </Page>
  );
}
