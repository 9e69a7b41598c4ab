import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useGoBack } from '../../../components/nav-bar';
import { walletApi } from '../../../api/wallet';
import { PATHS } from '../../../app/paths';
import { Field, SelectField } from '../../../components/form';
import { ImageUpload, useUploading } from '../../../components/image-upload';
import { Page } from '../../../components/page';
import { toast } from '../../../stores/toast.store';
import { draftOf, useLocationStore } from '../../choose-location/location.store';

type Name = 'country' | 'name' | 'id_number' | 'address' | 'front' | 'back' | 'hand' | 'id_type';

/**
 * Basic (country, name, ID number, address, three photos: spec §5) and advanced (document type,
 * number, photos; back not for a passport) verification. Photos are compressed and uploaded first.
 */
export function VerificationFormPage({ titleKey, advanced = false }: { titleKey: string; advanced?: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const goBack = useGoBack();
  // The draft left for the map picker belongs to this form only (the other one must not get its photos).
  const form = advanced ? PATHS.verificationAdvanced : PATHS.verificationBasic;
  // Back from the map picker: the fields as they were, with the chosen address (docs/news.md).
  const [f, setF] = useState<Record<Name, string>>(() => {
    const { picked, draft } = useLocationStore.getState();
    const base = { country: '', name: '', id_number: '', address: '', front: '', back: '', hand: '', id_type: 'id_card', ...(draftOf(draft, form) ?? {}) };
    return picked ? { ...base, address: picked.address } : base;
  });
  const place = useLocationStore((s) => s.current);
  useEffect(() => void useLocationStore.getState().take(form), [form]);
  const chooseOnMap = () => {
    useLocationStore.getState().saveDraft(form, f);
    const at: Record<string, string> = place && place.address === f.address ? { lat: place.lat, lng: place.lng } : {};
    navigate(`${PATHS.chooseLocation}?${new URLSearchParams({ back: PATHS.verificationBasic, address: f.address, ...at }).toString()}`);
  };
  const [errors, setErrors] = useState<Partial<Record<Name, string>>>({});
  const [busy, setBusy] = useState(false);
  // Not sent while a photo is uploading: it would go out with the picture being replaced, or none.
  const { uploading, onUploading } = useUploading();
  const set = (k: Name) => (v: string) => setF((s) => ({ ...s, [k]: v }));
  const needBack = !advanced || f.id_type !== 'passport';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const required: Name[] = advanced ? ['id_number', 'front', 'hand', ...(needBack ? (['back'] as Name[]) : [])] : ['country', 'name', 'id_number', 'address', 'front', 'back', 'hand'];
    const found: Partial<Record<Name, string>> = {};
    for (const k of required) if (!f[k].trim()) found[k] = t(`kyc.required.${k}`);
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      if (advanced) await walletApi.submitAdvanced({ id_type: f.id_type, id_number: f.id_number.trim(), front_image: f.front, back_image: needBack ? f.back : undefined, hand_image: f.hand });
      else await walletApi.submitBasic({ country: f.country.trim(), name: f.name.trim(), id_number: f.id_number.trim(), address: f.address.trim(), front_image: f.front, back_image: f.back, hand_image: f.hand });
      toast(t('kyc.submitted'));
      goBack(PATHS.verification);
    } catch {
      // shown by the client
    } finally {
      setBusy(false);
    }
  };
  return (
    <Page title={t(titleKey)}>
      <form className="form card" onSubmit={submit} noValidate>
        {advanced ? (
          <SelectField label={t('kyc.idType')} value={f.id_type} onChange={set('id_type')} options={['id_card', 'passport', 'driving_licence'].map((v) => ({ value: v, label: t(`kyc.types.${v}`) }))} name="id_type" />
        ) : (
          <>
            <Field label={t('kyc.country')} autoComplete="country-name" maxLength={64} value={f.country} onChange={set('country')} error={errors.country} name="country" />
            <Field label={t('kyc.name')} autoComplete="name" maxLength={100} value={f.name} onChange={set('name')} error={errors.name} name="name" />
          </>
        )}
        <Field label={t('kyc.idNumber')} autoComplete="off" maxLength={32} value={f.id_number} onChange={set('id_number')} error={errors.id_number} name="id_number" />
        {!advanced && (
          <>
            <Field
              label={t('kyc.address')}
              autoComplete="street-address"
              maxLength={255}
              value={f.address}
              onChange={set('address')}
              error={errors.address}
              name="address"
              addon={
                <button type="button" className="button" onClick={chooseOnMap} data-testid="address-map">
                  {t('location.chooseOnMap')}
                </button>
              }
            />
            {place && place.address === f.address && (
              <Link
                className="notice-item__text"
                to={`${PATHS.openLocation}?${new URLSearchParams({ lat: place.lat, lng: place.lng, name: place.address }).toString()}`}
                // The form unmounts while the map shows: back, the fields and photos are as they were.
                onClick={() => useLocationStore.getState().saveDraft(form, f)}
                data-testid="address-view-map"
              >
                {t('location.viewOnMap', { lat: place.lat, lng: place.lng })}
              </Link>
            )}
          </>
        )}
        <ImageUpload label={t('kyc.front')} value={f.front} onChange={set('front')} error={errors.front} testId="upload-front" onUploading={onUploading} />
        {needBack && <ImageUpload label={t('kyc.back')} value={f.back} onChange={set('back')} error={errors.back} testId="upload-back" onUploading={onUploading} />}
        <ImageUpload label={t('kyc.hand')} value={f.hand} onChange={set('hand')} error={errors.hand} testId="upload-hand" onUploading={onUploading} />
        <button type="submit" className="button button--primary button--block" disabled={busy || uploading} data-testid="kyc-submit">
          {t('common.submit')}
        </button>
      </form>
    </Page>
  );
}

export const VerificationAdvancedPage = ({ titleKey }: { titleKey: string }) => <VerificationFormPage titleKey={titleKey} advanced />;
