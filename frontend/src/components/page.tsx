import type { ReactNode } from 'react';
import { NavBar } from './nav-bar';

interface PageProps {
  title: string;
  back?: boolean;
  left?: ReactNode;
  right?: ReactNode;
  children: ReactNode;
  className?: string;
}

/** A screen: its navigation bar and its content (the tab bar is the layout's). */
export function Page({ title, back, left, right, children, className }: PageProps) {
  return (
    <>
      <NavBar title={title} back={back} left={left} right={right} />
      <main id="main" className={`page ${className ?? ''}`}>
        {children}
      </main>
    </>
  );
}
