import { Suspense, useCallback, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { PageSkeleton } from '../components/page-skeleton';
import { PullRefresh } from '../components/pull-refresh';
import { SideMenu } from '../components/side-menu';
import { TabBar } from '../components/tab-bar';
import { Toaster } from '../components/toaster';
import { useBackExit } from '../components/use-back-exit';
import { useSessionStore } from '../stores/session.store';
import { useUiStore } from '../stores/ui.store';
import { ErrorBoundary } from './error-boundary';
import { GUARDED, isTabPath, loginPath, PATHS, PULL_REFRESH } from './paths';

/** The frame around every screen: tab bar on tab pages, side menu, toasts, back-to-exit at the root. */
export function Layout({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const menuOpen = useUiStore((s) => s.menuOpen);
  const setMenuOpen = useUiStore((s) => s.setMenuOpen);
  const closeMenu = useCallback(() => setMenuOpen(false), [setMenuOpen]);
  useBackExit(pathname === PATHS.home || pathname === PATHS.homeAlias);
  const tabs = isTabPath(pathname);
  return (
    <div className={`app${tabs ? ' has-tabs' : ''}`}>
      {children}
      {tabs && <TabBar />}
      <SideMenu open={menuOpen} onClose={closeMenu} />
      <Toaster />
    </div>
  );
}

/**
 * One route's screen: lazily loaded (with a skeleton), behind the login prompt when spec §6 guards
 * it (home shows its own prompt), and inside pull-down refresh where spec §2 says.
 */
export function RouteScreen({ path, children }: { path: string; children: ReactNode }) {
  const location = useLocation();
  const token = useSessionStore((s) => s.token);
  const [generation, setGeneration] = useState(0);
  if (GUARDED.has(path) && path !== PATHS.home && path !== PATHS.homeAlias && !token) {
    return <Navigate replace to={loginPath(location.pathname + location.search)} />;
  }
  const screen = (
    <ErrorBoundary>
      <Suspense fallback={<PageSkeleton />}>
        <div key={generation} className="screen">
          {children}
        </div>
      </Suspense>
    </ErrorBoundary>
  );
  // Refresh remounts the screen, so it loads its data again.
  return PULL_REFRESH.has(path) ? <PullRefresh onRefresh={() => setGeneration((g) => g + 1)}>{screen}</PullRefresh> : screen;
}
