import { useTranslation } from 'react-i18next';
import { direction, signedPercent } from './format';

/** A 24 h change: colour (green-up or red-up, from settings) plus an arrow and a sign, never colour alone. */
export function Change({ pct }: { pct: string | null | undefined }) {
  const { t } = useTranslation();
  const dir = direction(pct);
  const arrow = dir === 'up' ? '▲' : dir === 'down' ? '▼' : '–';
  return (
    <span className={`change change--${dir}`}>
      <span aria-hidden="true">{arrow} </span>
      <span className="visually-hidden">{t(`home.${dir}`)} </span>
      {signedPercent(pct)}
    </span>
  );
}
