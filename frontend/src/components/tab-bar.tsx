import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router-dom';
import { TABS } from '../app/paths';
import { Icon } from './icons';

/** The bottom tab bar (reading A of spec §2, see docs/architecture.md). */
export function TabBar() {
  const { t } = useTranslation();
  return (
    <nav className="tab-bar" aria-label={t('tabs.label')}>
      {TABS.map((tab) => (
        <NavLink key={tab.key} to={tab.path} end className={({ isActive }) => `tab-bar__item${isActive ? ' is-active' : ''}`} replace>
          <Icon name={tab.icon} />
          <span>{t(`tabs.${tab.key}`)}</span>
        </NavLink>
      ))}
    </nav>
  );
}
