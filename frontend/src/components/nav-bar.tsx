import { useCallback, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { Icon } from './icons';

interface NavBarProps {
  title: string;
  /** Show the back button (pages opened from elsewhere; not the tab pages). */
  back?: boolean;
  left?: ReactNode;
  right?: ReactNode;
}

/**
 * Back to the page before this one in the app, or, opened directly (a shared link: none before it),
 * to `fallback` in its place. A screen that is done (a picker confirmed, a form sent) goes back so:
 * replacing itself with the page before would leave that page twice in the history.
 */
export function useGoBack(): (fallback: string) => void {
  const navigate = useNavigate();
  return useCallback(
    (fallback: string) => {
      const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
      if (idx > 0) navigate(-1);
      else navigate(fallback, { replace: true });
    },
    [navigate],
  );
}

/** The 44 px navigation bar (spec §2): back, title, an optional action. */
export function NavBar({ title, back = true, left, right }: NavBarProps) {
  const { t } = useTranslation();
  const goBackOr = useGoBack();
  const goBack = () => goBackOr('/');
  return (
    <header className="nav-bar">
      <div className="nav-bar__side">
        {left ??
          (back && (
            <button type="button" className="icon-button" onClick={goBack} aria-label={t('common.back')}>
              <Icon name="back" />
            </button>
          ))}
      </div>
      <h1 className="nav-bar__title">{title}</h1>
      <div className="nav-bar__side nav-bar__side--right">{right}</div>
    </header>
  );
}
