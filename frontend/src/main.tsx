import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { api } from './api/endpoints';
import { watchPendingLogouts } from './api/logout';
import { App } from './App';
import { initI18n, storedLang } from './i18n/i18n';
import { applyTheme, useThemeStore } from './stores/theme.store';
import './theme/theme.css';

async function boot() {
  const lang = storedLang();
  const { chosen, system, upColor } = useThemeStore.getState();
  applyTheme(chosen ?? system, upColor);
  await initI18n(lang);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
  // Spec §7: the app tells the server its language on launch (stored on the account when logged in).
  api.setLang(lang, { quiet: true }).catch(() => undefined);
  // A logout made offline ends its server session once the app is online.
  watchPendingLogouts();
}

void boot();
