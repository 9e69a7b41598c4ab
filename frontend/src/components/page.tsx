import { useEffect, type ReactNode } from 'react';
import { t } from '../i18n/i18n';
import { NavBar } from './nav-bar';

interface PageProps {
  title: string;
  back?: boolean;
  left?: ReactNode;
  right?: ReactNode;
  children: ReactNode;
  className?: string;
}

/** The tab's title (and what a screen reader announces for it) names the screen, in the app's language. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    const app = t('common.appName');
    document.title = title && title !== app ? `${title} · ${app}` : app;
  }, [title]);
}

/** A screen: its navigation bar and its content (the tab bar is the layout's). */
export function Page({ title, back, left, right, children, className }: PageProps) {
  useDocumentTitle(title);
  return (
    <>
      <NavBar title={title} back={back} left={left} right={right} />
      <main id="main" className={`page ${className ?? ''}`}>
        {children}
      </main>
    </>
  );
}
