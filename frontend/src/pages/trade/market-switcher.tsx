import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { MarketInfo } from '../../api/trading';

/** The market switcher: a native select (accessible, one tap on a phone). */
export function MarketSwitcher({ markets, value, onChange }: { markets: MarketInfo[]; value: string; onChange: (symbol: string) => void }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="market-switcher">
      <label htmlFor={id} className="visually-hidden">
        {t('trade.market_')}
      </label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} data-testid="market-switcher">
        {markets.map((m) => (
          <option key={m.symbol} value={m.symbol}>
            {m.symbol}
          </option>
        ))}
      </select>
    </div>
  );
}
