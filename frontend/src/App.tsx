import { useEffect } from 'react';
import { HashRouter, Navigate, Route, Routes } from 'react-router-dom';
import { Layout, RouteScreen } from './app/layout';
import { ROUTES } from './app/routes';
import { applyTheme, useTheme, useThemeStore } from './stores/theme.store';

/** The app: hash routes with exactly the spec's paths (relative base, so it works under any path). */
export function App() {
  const theme = useTheme();
  const upColor = useThemeStore((s) => s.upColor);
  useEffect(() => applyTheme(theme, upColor), [theme, upColor]);
  useEffect(() => {
    const media = window.matchMedia?.('(prefers-color-scheme: dark)');
    const onChange = () => useThemeStore.getState().setSystem(media.matches ? 'dark' : 'light');
    media?.addEventListener?.('change', onChange);
    return () => media?.removeEventListener?.('change', onChange);
  }, []);
  return (
    <HashRouter>
      <Layout>
        <Routes>
          {ROUTES.map(({ key, path, titleKey, Screen }) => (
            <Route
              key={key}
              path={path}
              element={
                <RouteScreen path={path}>
                  <Screen titleKey={titleKey} />
                </RouteScreen>
              }
            />
          ))}
          <Route path="*" element={<Navigate to="/" replace />} />
        </Routes>
      </Layout>
    </HashRouter>
  );
}
