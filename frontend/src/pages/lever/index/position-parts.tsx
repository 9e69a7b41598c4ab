import { useTranslation } from 'react-i18next';
import { direction } from '../../../components/format';
import { amountText, truncate } from '../../../components/format';

/** Long/short with an arrow and the word (never colour alone), lots and multiple. */
export function Side({ side, lots, multiple }: { side: 'long' | 'short'; lots: number; multiple: number }) {
  const { t } = useTranslation();
  return (
    <strong className={`side side--${side === 'long' ? 'buy' : 'sell'}`}>
      <span aria-hidden="true">{side === 'long' ? '▲' : '▼'} </span>
      {t(side === 'long' ? 'lever.long' : 'lever.short')} · {t('lever.lotsOf', { count: lots })} · {multiple}×
    </strong>
  );
}

/** Which position a button acts on, for a screen reader: every position in a list has the same buttons. */
export function Which({ side, lots, multiple }: { side: 'long' | 'short'; lots: number; multiple: number }) {
  const { t } = useTranslation();
  return (
    <span className="visually-hidden">
      {' '}
      ({t(side === 'long' ? 'lever.long' : 'lever.short')} · {t('lever.lotsOf', { count: lots })} · {multiple}×)
    </span>
  );
}

/** A signed P/L in USDT: sign, arrow and a screen-reader word as well as the colour. */
export function PnL({ value, testId = 'pnl' }: { value: string | null; testId?: string }) {
  const { t } = useTranslation();
  const dir = direction(value);
  const sign = dir === 'up' ? '+' : '';
  return (
    <span className={`change change--${dir}`} data-testid={testId}>
      <span className="visually-hidden">{t('lever.pnl')} </span>
      <span aria-hidden="true">{dir === 'up' ? '▲ ' : dir === 'down' ? '▼ ' : ''}</span>
      {value === null ? '--' : `${sign}${truncate(value, 4)} USDT`}
    </span>
  );
}

/** A position's fee (charged at opening) and how it was ordered (market or limit): two cells of its figures. */
export function FeeAndType({ fee, type, testId }: { fee: string; type: 'market' | 'limit'; testId: string }) {
  const { t } = useTranslation();
  return (
    <>
      <div>
        <dt>{t('trade.feePreview')}</dt>
        <dd className="num" data-testid={testId}>
          {amountText(fee)} USDT
        </dd>
      </div>
      <div>
        <dt>{t('lever.orderType')}</dt>
        <dd>{t(type === 'limit' ? 'trade.limit' : 'trade.market')}</dd>
      </div>
    </>
  );
}
