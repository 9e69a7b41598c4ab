import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { loginPath, PATHS } from '../app/paths';
import { useSessionStore } from '../stores/session.store';
import { Icon } from './icons';

/** Spec §2 "Left side menu", in the spec's order. */
export const MENU_ENTRIES = [
  { key: 'deposit', path: PATHS.deposit },
  { key: 'withdraw', path: PATHS.withdraw },
  { key: 'promotion', path: PATHS.promotion },
  { key: 'verification', path: PATHS.verification },
  { key: 'security', path: PATHS.security },
  { key: 'addresses', path: PATHS.address },
  { key: 'contactUs', path: PATHS.helpChat },
  { key: 'helpCenter', path: PATHS.helpCenter },
  { key: 'pricing', path: PATHS.rate },
  { key: 'settings', path: PATHS.settings },
  { key: 'records', path: PATHS.assetsRecord },
  { key: 'invite', path: PATHS.promotion },
  // Reading B/C tab destinations kept one tap away (docs/architecture.md, "Tab bar").
  { key: 'options', path: PATHS.optionDetail },
  { key: 'trust', path: PATHS.template },
] as const;

export function SideMenu({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const user = useSessionStore((s) => s.user);
  const token = useSessionStore((s) => s.token);
  const location = useLocation();
  const closeRef = useRef<HTMLButtonElement>(null);
  const rootRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    // A modal: what is behind it (the screen, the tab bar: the elements before the menu) can be
    // neither focused nor read while it is open, and focus goes back to what opened it when it closes.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const behind: Element[] = [];
    for (let e = rootRef.current?.previousElementSibling; e; e = e.previousElementSibling) if (!e.hasAttribute('inert')) behind.push(e);
    for (const e of behind) e.setAttribute('inert', '');
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      for (const e of behind) e.removeAttribute('inert');
      if (opener?.isConnected) opener.focus();
    };
  }, [open, onClose]);

  if (!open) return null;
  return (
    <div className="side-menu" role="presentation" ref={rootRef}>
      <div className="side-menu__scrim" onClick={onClose} aria-hidden="true" />
      <aside className="side-menu__panel" role="dialog" aria-modal="true" aria-labelledby="side-menu-title">
        <div className="side-menu__head">
          <h2 id="side-menu-title">{t('menu.title')}</h2>
          <button ref={closeRef} type="button" className="icon-button" onClick={onClose} aria-label={t('common.close')}>
            <Icon name="close" />
          </button>
        </div>
        {token && user ? (
          <div className="side-menu__user">
            <Icon name="user" size={36} />
            <div>
              <strong>{user.nickname}</strong>
              <p className="muted">{user.account}</p>
            </div>
          </div>
        ) : (
          <div className="side-menu__prompt">
            <strong>{t('menu.welcome')}</strong>
            <p className="muted">{t('menu.loginPrompt')}</p>
            <div className="button-row">
              <Link className="button button--primary" to={loginPath(location.pathname + location.search)} onClick={onClose}>
                {t('auth.login')}
              </Link>
              <Link className="button" to={PATHS.choose} onClick={onClose}>
                {t('auth.register')}
              </Link>
            </div>
          </div>
        )}
        <ul className="list" aria-label={t('menu.title')}>
          {MENU_ENTRIES.map((entry) => (
            <li key={entry.key}>
              <Link className="list__item" to={entry.path} onClick={onClose}>
                <span>{t(`menu.${entry.key}`)}</span>
                <Icon name="chevron" size={18} />
              </Link>
            </li>
          ))}
        </ul>
      </aside>
    </div>
  );
}
