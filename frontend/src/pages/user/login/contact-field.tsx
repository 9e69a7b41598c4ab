import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type AreaCode } from '../../../api/endpoints';
import { contactErrors, normalisePhone } from '../../../app/validation';
import { Field } from '../../../components/form';
import { currentLang, localName } from '../../../i18n/i18n';
import { toast } from '../../../stores/toast.store';

let cache: Promise<AreaCode[]> | null = null;
// A sensible first choice of calling code per language; the user can change it.
const DEFAULT_CODE: Record<string, string> = { zh: '86', hk: '852', jp: '81', kr: '82', ty: '66', py: '55', en: '1' };

export function useAreaCodes() {
  const [codes, setCodes] = useState<AreaCode[]>([]);
  useEffect(() => {
    // Kept for the visit once it has answers; a failure or an empty list is asked again next time.
    cache ??= api.areaCodes().then(
      (list) => ((cache = list.length ? cache : null), list),
      (e) => {
        cache = null;
        throw e;
      },
    );
    cache.then(setCodes, () => undefined);
  }, []);
  return codes;
}

export function defaultAreaCode(codes: AreaCode[]): string {
  const wanted = DEFAULT_CODE[currentLang()];
  return codes.find((c) => c.code === wanted)?.code ?? codes[0]?.code ?? '';
}

interface ContactFieldProps {
  type: 'phone' | 'email';
  value: string;
  onChange: (v: string) => void;
  areaCode: string;
  onAreaCode: (code: string) => void;
  error?: string;
  addon?: ReactNode;
}

/** A phone number (with its country code) or an e-mail address. */
export function ContactField({ type, value, onChange, areaCode, onAreaCode, error, addon }: ContactFieldProps) {
  const { t } = useTranslation();
  const codes = useAreaCodes();
  useEffect(() => {
    if (type === 'phone' && !areaCode && codes.length) onAreaCode(defaultAreaCode(codes));
  }, [type, areaCode, codes, onAreaCode]);
  if (type === 'email') {
    return <Field label={t('auth.email')} type="email" inputMode="email" autoComplete="email" value={value} onChange={onChange} error={error} addon={addon} name="email" />;
  }
  return (
    <Field
      label={t('auth.phone')}
      type="tel"
      inputMode="tel"
      autoComplete="tel-national"
      value={value}
      onChange={onChange}
      error={error}
      addon={addon}
      name="phone"
      before={
        <select className="area-code" aria-label={t('auth.areaCode')} value={areaCode} onChange={(e) => onAreaCode(e.target.value)}>
          {codes.map((c) => (
            <option key={`${c.iso}-${c.code}`} value={c.code}>
              +{c.code} {localName('region', c.iso, c.name)}
            </option>
          ))}
        </select>
      }
    />
  );
}

/**
 * The contact of a registration or a password reset as the API takes it (`target()`), and the
 * sender of its code: it checks the contact first (the error goes to `onContactError`) and answers
 * whether the code was sent, for the resend countdown.
 */
export function useContactCode(purpose: 'register' | 'forget', type: 'phone' | 'email', contact: string, areaCode: string, onContactError: (error: string | undefined) => void) {
  const target = (): Record<string, string> => (type === 'phone' ? { phone: normalisePhone(contact), area_code: areaCode } : { email: contact.trim() });
  const sendCode = async () => {
    const error = contactErrors(type, contact);
    onContactError(error);
    if (error) return false;
    try {
      toast(await api.sendCode(type, purpose, target()));
      return true;
    } catch {
      return false;
    }
  };
  return { target, sendCode };
}
