import { useEffect } from 'react';
import { t } from '../i18n/i18n';
import { toast } from '../stores/toast.store';
import { useUiStore } from '../stores/ui.store';
import { createBackExit } from './back-exit';

const GUARD = 'kestrelExitGuard';
const isGuard = () => Boolean((window.history.state as Record<string, unknown> | null)?.[GUARD]);
const pushGuard = () => window.history.pushState({ ...(window.history.state as object | null), [GUARD]: true }, '', window.location.href);

/**
 * "Press again to exit" at the root: a duplicate history entry (same URL, same router index)
 * catches the first back press, which only warns; a second press within 2 s really goes back.
 * With the side menu open, back closes it instead.
 */
export function useBackExit(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const guard = createBackExit();
    if (!isGuard()) pushGuard();
    const onPop = () => {
      if (isGuard()) return;
      // The side menu open: back closes it (a modal's back), and the guard is set again.
      if (useUiStore.getState().menuOpen) {
        useUiStore.getState().setMenuOpen(false);
        pushGuard();
        return;
      }
      if (guard.press() === 'warn') {
        toast(t('common.pressAgainToExit'));
        pushGuard();
      } else {
        window.history.back();
      }
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [active]);
}
