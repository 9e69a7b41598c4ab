import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router-dom';
import { useGoBack } from '../../../../components/nav-bar';
import { api } from '../../../../api/endpoints';
import { loginPath, PATHS } from '../../../../app/paths';
import { hasErrors, validateChangePassword, type Errors } from '../../../../app/validation';
import { Field } from '../../../../components/form';
import { Page } from '../../../../components/page';
import { useSessionStore } from '../../../../stores/session.store';
import { toast } from '../../../../stores/toast.store';

type FieldName = 'old' | 'password' | 'confirm';

/** Change the login password: current, new and confirm (spec §5). Other sessions end; this one stays. */
export function ChangePasswordPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const goBack = useGoBack();
  const token = useSessionStore((s) => s.token);
  const [old, setOld] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<Errors<FieldName>>({});
  const [busy, setBusy] = useState(false);
  if (!token) return <Navigate replace to={loginPath(PATHS.changePassword)} />;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateChangePassword({ old, password, confirm });
    setErrors(found);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      toast(await api.updatePassword({ old_password: old, password, re_password: confirm }));
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
        <Field label={t('security.oldPassword')} type="password" autoComplete="current-password" value={old} onChange={setOld} error={err('old')} name="old_password" />
        <Field label={t('security.newPassword')} type="password" autoComplete="new-password" placeholder={t('auth.passwordHint')} value={password} onChange={setPassword} error={err('password')} name="password" />
        <Field label={t('security.confirmNew')} type="password" autoComplete="new-password" value={confirm} onChange={setConfirm} error={err('confirm')} name="re_password" />
        <button type="submit" className="button button--primary button--block" disabled={busy}>
          {t('common.submit')}
        </button>
      </form>
    </Page>
  );
}
