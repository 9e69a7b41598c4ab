import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { Empty } from '../../components/feedback';
import { Page } from '../../components/page';
import { coordinateError, osmLink } from '../choose-location/location.store';
import { MapView } from '../choose-location/map-view';

/** `/open-location?lat=&lng=&name=`: a stored location on the map (when tiles load), its address and coordinates. */
export function OpenLocationPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [, setOffline] = useState(false);
  const lat = params.get('lat') ?? '';
  const lng = params.get('lng') ?? '';
  const name = params.get('name') ?? '';
  const valid = !coordinateError(lat, 90) && !coordinateError(lng, 180);
  return (
    <Page title={t(titleKey)} back>
      {!valid ? (
        <Empty text={t('location.none')} />
      ) : (
        <>
          <MapView lat={Number(lat)} lng={Number(lng)} onUnavailable={() => setOffline(true)} />
          <section className="card" data-testid="open-location">
            {name && <h2>{name}</h2>}
            <p className="notice-item__text">
              {t('location.lat')}: {lat} · {t('location.lng')}: {lng}
            </p>
            <a className="button button--block" href={osmLink(lat, lng)} target="_blank" rel="noopener noreferrer">
              {t('location.openOsm')}
            </a>
          </section>
        </>
      )}
    </Page>
  );
}
