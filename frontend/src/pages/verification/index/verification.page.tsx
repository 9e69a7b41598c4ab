import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { walletApi, type KycStates, type KycState } from '../../../api/wallet';
import { PATHS } from '../../../app/paths';
import { LoadFailed, Skeleton } from '../../../components/feedback';
import { Icon } from '../../../components/icons';
import { Page } from '../../../components/page';

/** Identity verification: each level's state (unverified, under review, verified, rejected with the reason). */
export function VerificationPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  // undefined while loading, null when the load failed.
  const [states, setStates] = useState<KycStates | null | undefined>(undefined);
  const load = () => {
    setStates(undefined);
    walletApi.kyc().then(setStates, () => setStates(null));
  };
  useEffect(load, []);
  const level = (key: 'basic' | 'advanced', state: KycState, reason: string | null, path: string, locked: boolean) => {
    const open = (state === 'unverified' || state === 'rejected') && !locked;
    const body = (
      <>
        <span>
          <strong>{t(`kyc.${key}`)}</strong>
          <small className="muted block">{t(`kyc.${key}Text`)}</small>
          {state === 'rejected' && reason && <small className="block" data-testid={`${key}-reason`}>{t('funding.reason', { reason })}</small>}
          {locked && <small className="muted block">{t('kyc.basicFirst')}</small>}
        </span>
        <span className={`status status--${state}`} data-testid={`${key}-state`}>{t(`kyc.state.${state}`)}</span>
        {open && <Icon name="chevron" size={18} />}
      </>
    );
    return <li>{open ? <Link className="list__item list__item--tall" to={path}>{body}</Link> : <div className="list__item list__item--tall list__item--static">{body}</div>}</li>;
  };
  return (
    <Page title={t(titleKey)}>
      {states === undefined ? (
        <Skeleton rows={2} height={64} />
      ) : states === null ? (
        <LoadFailed onRetry={load} />
      ) : (
        <section className="card">
          <ul className="list">
            {level('basic', states.basic, states.basic_reason, PATHS.verificationBasic, false)}
            {level('advanced', states.advanced, states.advanced_reason, PATHS.verificationAdvanced, states.basic !== 'verified')}
          </ul>
        </section>
      )}
    </Page>
  );
}
