import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router-dom';
import { useGoBack } from '../../../../components/nav-bar';
import { api } from '../../../../api/endpoints';
import { loginPath, PATHS } from '../../../../app/paths';
import { hasErrors, validateFundPassword, type Errors } from '../../../../app/validation';
import { Field, SendCodeButton } from '../../../../components/form';
import { Page } from '../../../../components/page';
import { maskContact, useFreshUser } from '../../../../components/use-user';
import { useSessionStore } from '../../../../stores/session.store';
import { toast } from '../../../../stores/toast.store';

type FieldName = 'password' | 'confirm' | 'code';

/** Set or change the fund password (exactly 6 digits) with a code sent to the account's phone, else its e-mail. */
export function ChangePayPasswordPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const goBack = useGoBack();
  const user = useFreshUser();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Errors<FieldName>>({});
  const [busy, setBusy] = useState(false);
  if (!user) return <Navigate replace to={loginPath(PATHS.changePayPassword)} />;
  const channel = user.phone ? 'phone' : user.email ? 'email' : null;

  const sendCode = async () => {
    if (!channel) return false;
    try {
      toast(await api.sendCode(channel, 'fund_password'));
      return true;
    } catch {
      return false;
    }
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateFundPassword({ password, confirm, code });
    setErrors(found);
    if (hasErrors(found) || !channel) return;
    setBusy(true);
    try {
      toast(await api.setFundPassword({ password, re_password: confirm, code: code.trim(), channel: channel === 'phone' ? 'sms' : 'email' }));
      useSessionStore.getState().setUser({ ...user, has_fund_password: true });
      goBack(PATHS.security);
    } catch {
      // The client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };
  const err = (f: FieldName) => (errors[f] ? t(errors[f]!) : undefined);
  return (
    <Page title={t(titleKey)}>
      <form className="form" onSubmit={submit} noValidate>
        <Field label={t('security.fundInput')} type="password" inputMode="numeric" autoComplete="off" maxLength={6} value={password} onChange={setPassword} error={err('password')} name="password" />
        <Field label={t('security.fundConfirm')} type="password" inputMode="numeric" autoComplete="off" maxLength={6} value={confirm} onChange={setConfirm} error={err('confirm')} name="re_password" />
        <Field label={t('auth.code')} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={setCode} error={err('code')} name="code" addon={<SendCodeButton onSend={sendCode} disabled={!channel} />} />
        <p className="muted small">{channel ? t('security.codeTo', { target: maskContact(user) }) : t('security.noContact')}</p>
        <button type="submit" className="button button--primary button--block" disabled={busy || !channel}>
          {t('common.submit')}
        </button>
      </form>
    </Page>
  );
}
