import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { api } from '../../../../api/endpoints';
import { startSession } from '../../../../api/logout';
import { PATHS } from '../../../../app/paths';
import { hasErrors, validateLogin, type Errors } from '../../../../app/validation';
import { Field, Segmented } from '../../../../components/form';
import { Page } from '../../../../components/page';
import { ContactField } from '../contact-field';

/** Where to go after logging in: `backpage` (encoded) if it is an in-app path, else home. */
export function backTarget(params: URLSearchParams): string {
  const back = params.get('backpage');
  if (!back) return PATHS.home;
  let path: string;
  try {
    path = decodeURIComponent(back);
  } catch {
    return PATHS.home;
  }
  // Only paths inside the app: never an absolute URL or a protocol-relative one.
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith(PATHS.login) ? path : PATHS.home;
}

export function LoginPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [type, setType] = useState<'phone' | 'email'>('email');
  const [account, setAccount] = useState('');
  const [areaCode, setAreaCode] = useState('');
  const [password, setPassword] = useState('');
  const [show, setShow] = useState(false);
  const [errors, setErrors] = useState<Errors<'account' | 'password'>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateLogin({ account, password });
    setErrors(found);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      const session = await api.login({ account: account.trim(), password, area_code: type === 'phone' ? areaCode : undefined });
      startSession(session.token, session.user);
      // backtype 2 (a tab page) and 1 both replace the login page, so back does not return to it.
      navigate(backTarget(params), { replace: true });
    } catch {
      // The client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title={t(titleKey)}>
      <form className="form" onSubmit={submit} noValidate>
        <h2 className="form__heading">{t('auth.welcome')}</h2>
        <Segmented
          label={t('auth.account')}
          value={type}
          onChange={(v) => (setType(v), setErrors({}))}
          options={[
            { value: 'email', label: t('auth.byEmail') },
            { value: 'phone', label: t('auth.byPhone') },
          ]}
        />
        <ContactField type={type} value={account} onChange={setAccount} areaCode={areaCode} onAreaCode={setAreaCode} error={errors.account && t(errors.account)} />
        <Field
          label={t('auth.password')}
          type={show ? 'text' : 'password'}
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          error={errors.password && t(errors.password)}
          name="password"
        />
        <label className="check">
          <input type="checkbox" checked={show} onChange={(e) => setShow(e.target.checked)} />
          <span>{t('auth.showPassword')}</span>
        </label>
        <button type="submit" className="button button--primary button--block" disabled={busy}>
          {t('auth.login')}
        </button>
        <div className="form__links">
          <Link to={PATHS.forgetPassword}>{t('auth.forgot')}</Link>
          <span>
            {t('auth.noAccount')} <Link to={PATHS.choose}>{t('auth.register')}</Link>
          </span>
        </div>
      </form>
    </Page>
  );
}
