import type { ReactNode } from 'react';
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

/** The 44 px navigation bar (spec §2): back, title, an optional action. */
export function NavBar({ title, back = true, left, right }: NavBarProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const goBack = () => {
    // Opened directly (a shared link): there is no page before this one in the app, so go home.
    const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (idx > 0) navigate(-1);
    else navigate('/', { replace: true });
  };
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
