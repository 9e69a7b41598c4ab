import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { api } from '../../../api/endpoints';
import { LOGIN_REDIRECT_MS } from '../../../api/client';
import { logOut } from '../../../api/logout';
import { PATHS } from '../../../app/paths';
import { APP_VERSION } from '../../../app/version';
import { Segmented, Switch } from '../../../components/form';
import { Icon } from '../../../components/icons';
import { Page } from '../../../components/page';
import { useFreshUser } from '../../../components/use-user';
import { currentLang, LANGUAGE_NAMES } from '../../../i18n/i18n';
import { KEPT_KEYS } from '../../../stores/storage';
import { useTheme, useThemeStore, type UpColor } from '../../../stores/theme.store';
import { toast } from '../../../stores/toast.store';

/** Clear cache: everything stored locally except the session and the user's choices. */
async function clearCache() {
  for (const key of Object.keys(localStorage)) if (!KEPT_KEYS.includes(key)) localStorage.removeItem(key);
  sessionStorage.clear();
  if ('caches' in window) for (const name of await caches.keys()) await caches.delete(name);
}

export function SettingsPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useFreshUser();
  const theme = useTheme();
  const { setTheme, upColor, setUpColor } = useThemeStore();
  const [version, setVersion] = useState(APP_VERSION);
  useEffect(() => {
    api.settings().then((s) => setVersion(s.version), () => undefined);
  }, []);

  const [loggingOut, setLoggingOut] = useState(false);
  const logout = async () => {
    if (loggingOut) return;
    setLoggingOut(true);
    toast(await logOut());
    // Spec §9: the login page opens 0.5 s after logging out.
    setTimeout(() => navigate(PATHS.login, { replace: true }), LOGIN_REDIRECT_MS);
  };

  return (
    <Page title={t(titleKey)}>
      <section className="card" aria-labelledby="account-title">
        <h2 id="account-title" className="card__title">
          {t('settings.accountInfo')}
        </h2>
        {user ? (
          <dl className="rows" data-testid="account-info">
            <div>
              <dt>{t('settings.nickname')}</dt>
              <dd>{user.nickname}</dd>
            </div>
            <div>
              <dt>{t('settings.account')}</dt>
              <dd>{user.account}</dd>
            </div>
            <div>
              <dt>{t('settings.phone')}</dt>
              <dd>{user.phone ? `+${user.area_code} ${user.phone}` : t('common.notSet')}</dd>
            </div>
            <div>
              <dt>{t('settings.email')}</dt>
              <dd>{user.email ?? t('common.notSet')}</dd>
            </div>
          </dl>
        ) : (
          <div className="login-prompt">
            <p className="muted">{t('settings.loginToSee')}</p>
            <Link className="button button--primary" to={`${PATHS.login}?backpage=${encodeURIComponent(PATHS.settings)}&backtype=1`}>
              {t('auth.login')}
            </Link>
          </div>
        )}
        {user && (
          <ul className="list">
            <li>
              <Link className="list__item" to={PATHS.account}>
                <span>{t('titles.account')}</span>
                <Icon name="chevron" size={18} />
              </Link>
            </li>
            <li>
              <Link className="list__item" to={PATHS.security}>
                <span>{t('titles.security')}</span>
                <Icon name="chevron" size={18} />
              </Link>
            </li>
          </ul>
        )}
      </section>

      <section className="card" aria-labelledby="prefs-title">
        <h2 id="prefs-title" className="card__title">
          {t('settings.preferences')}
        </h2>
        <ul className="list">
          <li>
            <Link className="list__item" to={PATHS.language}>
              <span>{t('settings.language')}</span>
              <span className="muted">{LANGUAGE_NAMES[currentLang()]}</span>
            </Link>
          </li>
          <li>
            <Switch label={t('settings.darkMode')} checked={theme === 'dark'} onChange={(on) => setTheme(on ? 'dark' : 'light')} />
          </li>
        </ul>
        <div className="field">
          <span className="field__label" id="upcolor-label">
            {t('settings.upColor')}
          </span>
          <Segmented<UpColor>
            label={t('settings.upColor')}
            value={upColor}
            onChange={setUpColor}
            options={[
              { value: 'green-up', label: `▲ ${t('settings.greenUp')}` },
              { value: 'red-up', label: `▲ ${t('settings.redUp')}` },
            ]}
          />
        </div>
      </section>

      <section className="card" aria-labelledby="general-title">
        <h2 id="general-title" className="visually-hidden">
          {t('settings.about')}
        </h2>
        <details className="list__details">
          <summary className="list__item">
            <span>{t('settings.about')}</span>
            <Icon name="chevron" size={18} />
          </summary>
          <p className="muted">{t('settings.aboutText')}</p>
        </details>
        <ul className="list">
          <li>
            <Link className="list__item" to={PATHS.integrity} data-testid="settings-integrity">
              <span>{t('titles.integrity')}</span>
              <Icon name="chevron" size={18} />
            </Link>
          </li>
          <li>
            <Link className="list__item" to={PATHS.proof} data-testid="settings-proof">
              <span>{t('titles.proof')}</span>
              <Icon name="chevron" size={18} />
            </Link>
          </li>
          <li>
            <button type="button" className="list__item" onClick={() => clearCache().then(() => toast(t('settings.cacheCleared')))}>
              <span>{t('settings.clearCache')}</span>
            </button>
          </li>
          <li className="list__item list__item--static">
            <span>{t('settings.version')}</span>
            <span className="muted" data-testid="version">
              {version}
            </span>
          </li>
        </ul>
      </section>

      {user && (
        <button type="button" className="button button--danger button--block" onClick={logout} disabled={loggingOut}>
          {t('settings.logout')}
        </button>
      )}
    </Page>
  );
}
