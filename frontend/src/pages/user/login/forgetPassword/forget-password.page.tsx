import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { api } from '../../../../api/endpoints';
import { PATHS } from '../../../../app/paths';
import { hasErrors, validateForget, type Errors } from '../../../../app/validation';
import { Field, SendCodeButton, Segmented } from '../../../../components/form';
import { Page } from '../../../../components/page';
import { toast } from '../../../../stores/toast.store';
import { ContactField, useContactCode } from '../contact-field';

type FieldName = 'contact' | 'code' | 'password' | 'confirm';

/** Reset the login password with a code sent to the account's phone or e-mail. */
export function ForgetPasswordPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [type, setType] = useState<'phone' | 'email'>('email');
  const [contact, setContact] = useState('');
  const [areaCode, setAreaCode] = useState('');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<Errors<FieldName>>({});
  const [busy, setBusy] = useState(false);
  const { target, sendCode } = useContactCode('forget', type, contact, areaCode, (error) => setErrors((e) => ({ ...e, contact: error })));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateForget({ type, contact, code, password, confirm });
    setErrors(found);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      toast(await api.forget({ type, ...target(), code: code.trim(), password, re_password: confirm }));
      navigate(PATHS.login, { replace: true });
    } catch {
      // The client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };

  const err = (field: FieldName) => (errors[field] ? t(errors[field]!) : undefined);
  return (
    <Page title={t(titleKey)}>
      <form className="form" onSubmit={submit} noValidate>
        <Segmented
          label={t('auth.account')}
          value={type}
          onChange={(v) => (setType(v), setContact(''), setErrors({}))}
          options={[
            { value: 'email', label: t('auth.byEmail') },
            { value: 'phone', label: t('auth.byPhone') },
          ]}
        />
        <ContactField type={type} value={contact} onChange={setContact} areaCode={areaCode} onAreaCode={setAreaCode} error={err('contact')} />
        <Field label={t('auth.code')} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={setCode} error={err('code')} name="code" addon={<SendCodeButton onSend={sendCode} />} />
        <Field label={t('auth.newPassword')} type="password" autoComplete="new-password" placeholder={t('auth.passwordHint')} value={password} onChange={setPassword} error={err('password')} name="password" />
        <Field label={t('auth.confirmPassword')} type="password" autoComplete="new-password" value={confirm} onChange={setConfirm} error={err('confirm')} name="re_password" />
        <button type="submit" className="button button--primary button--block" disabled={busy}>
          {t('auth.resetPassword')}
        </button>
      </form>
    </Page>
  );
}
