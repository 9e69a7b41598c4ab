import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { useGoBack } from '../../components/nav-bar';
import { PATHS } from '../../app/paths';
import { Field } from '../../components/form';
import { Page } from '../../components/page';
import { coordinateError, useLocationStore } from './location.store';
import { MapView } from './map-view';

type Name = 'lat' | 'lng' | 'address';
/** Only app routes may be returned to. */
const safeBack = (v: string | null) => (v && v.startsWith('/') && !v.startsWith('//') ? v : PATHS.verificationBasic);

/**
 * `/choose-location`: the contact address helper of the verification form. A map (Leaflet + OSM
 * tiles) when they load, and always a search-free form: latitude, longitude and the address as
 * the user writes it. Confirm hands the result back to the form at `?back=` (no geocoding).
 */
export function ChooseLocationPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const goBack = useGoBack();
  const [params] = useSearchParams();
  const pick = useLocationStore((s) => s.pick);
  const [f, setF] = useState<Record<Name, string>>({ lat: params.get('lat') ?? '', lng: params.get('lng') ?? '', address: params.get('address') ?? '' });
  const [errors, setErrors] = useState<Partial<Record<Name, string>>>({});
  const [offline, setOffline] = useState(false);
  const set = (k: Name) => (v: string) => {
    setF((s) => ({ ...s, [k]: v }));
    setErrors((e) => ({ ...e, [k]: undefined }));
  };
  const fixed = (n: number) => String(Math.round(n * 1e6) / 1e6);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found: Partial<Record<Name, string>> = {};
    const lat = coordinateError(f.lat, 90);
    const lng = coordinateError(f.lng, 180);
    if (lat) found.lat = t(`location.errors.lat_${lat}`);
    if (lng) found.lng = t(`location.errors.lng_${lng}`);
    const address = f.address.trim();
    if (!address) found.address = t('location.errors.address_required');
    else if (address.length > 255) found.address = t('location.errors.address_long');
    setErrors(found);
    if (Object.keys(found).length) return;
    pick({ lat: f.lat.trim(), lng: f.lng.trim(), address });
    goBack(safeBack(params.get('back')));
  };
  const latNum = Number(f.lat);
  const lngNum = Number(f.lng);
  const valid = !coordinateError(f.lat, 90) && !coordinateError(f.lng, 180);
  return (
    <Page title={t(titleKey)} back>
      {!offline && <p className="notice-item__text">{t('location.tapMap')}</p>}
      <MapView
        lat={valid ? latNum : undefined}
        lng={valid ? lngNum : undefined}
        onPick={(a, b) => setF((s) => ({ ...s, lat: fixed(a), lng: fixed(b) }))}
        onUnavailable={() => setOffline(true)}
      />
      <form className="form card" onSubmit={submit} noValidate data-testid="location-form">
        <Field label={t('location.lat')} inputMode="decimal" value={f.lat} onChange={set('lat')} error={errors.lat} name="lat" placeholder="22.3193" />
        <Field label={t('location.lng')} inputMode="decimal" value={f.lng} onChange={set('lng')} error={errors.lng} name="lng" placeholder="114.1694" />
        <Field
          label={t('location.address')}
          autoComplete="street-address"
          maxLength={255}
          value={f.address}
          onChange={set('address')}
          error={errors.address}
          name="address"
        />
        <button type="submit" className="button button--primary button--block" data-testid="location-confirm">
          {t('location.use')}
        </button>
      </form>
    </Page>
  );
}
