import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { walletApi, type FiatRate } from '../../../api/wallet';
import { LoadFailed, Skeleton } from '../../../components/feedback';
import { Icon } from '../../../components/icons';
import { Page } from '../../../components/page';
import { localName } from '../../../i18n/i18n';
import { usePricingStore } from '../../../stores/pricing.store';

/** The pricing currency: every displayed total (assets, accounts) is shown in it. */
export function RatePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const code = usePricingStore((s) => s.code);
  const setCode = usePricingStore((s) => s.setCode);
  // null: asked for; 'failed': not answered (a retry is offered, not an empty list).
  const [rates, setRates] = useState<FiatRate[] | 'failed' | null>(null);
  const load = useCallback(() => {
    setRates(null);
    walletApi.rates().then(setRates, () => setRates('failed'));
  }, []);
  useEffect(load, [load]);
  return (
    <Page title={t(titleKey)}>
      <section className="card">
        <p className="muted small">{t('rate.hint')}</p>
        {!rates ? (
          <Skeleton rows={6} />
        ) : rates === 'failed' ? (
          <LoadFailed onRetry={load} />
        ) : (
          <div className="list" role="radiogroup" aria-label={t(titleKey)}>
            {rates.map((r) => (
              <button
                key={r.code}
                type="button"
                role="radio"
                aria-checked={r.code === code}
                className="list__item"
                onClick={() => setCode(r.code)}
                data-testid={`rate-${r.code}`}
              >
                <span>
                  <strong>{r.code}</strong>{' '}
                  <span className="muted">
                    {r.symbol} · {localName('currency', r.code, r.name)}
                  </span>
                  <small className="muted block">{t('rate.perUsd', { rate: r.rate, code: r.code })}</small>
                </span>
                {r.code === code && <Icon name="check" />}
              </button>
            ))}
          </div>
        )}
      </section>
    </Page>
  );
}
