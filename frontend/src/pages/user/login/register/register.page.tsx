import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { api } from '../../../../api/endpoints';
import { startSession } from '../../../../api/logout';
import { PATHS } from '../../../../app/paths';
import { hasErrors, validateRegister, type Errors, type RegisterField } from '../../../../app/validation';
import { Field, SendCodeButton, Segmented } from '../../../../components/form';
import { Page } from '../../../../components/page';
import { ContactField, useContactCode } from '../contact-field';
import { inviteCodeFrom } from '../invite-code';

/** Registration by phone or e-mail (chosen on the choose page; switchable here), spec §5 rules. */
export function RegisterPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [type, setType] = useState<'phone' | 'email'>(params.get('type') === 'phone' ? 'phone' : 'email');
  const [contact, setContact] = useState('');
  const [areaCode, setAreaCode] = useState('');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [invite, setInvite] = useState(() => inviteCodeFrom(params));
  const [agreement, setAgreement] = useState(false);
  const [errors, setErrors] = useState<Errors<RegisterField>>({});
  const [busy, setBusy] = useState(false);
  const { target, sendCode } = useContactCode('register', type, contact, areaCode, (error) => setErrors((e) => ({ ...e, contact: error })));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateRegister({ type, contact, code, password, confirm, agreement });
    setErrors(found);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      const form: Record<string, string> = { type, ...target(), code: code.trim(), password, re_password: confirm, agreement: '1' };
      if (invite.trim()) form.invite_code = invite.trim();
      const session = await api.register(form);
      startSession(session.token, session.user);
      navigate(PATHS.home, { replace: true });
    } catch {
      // The client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };

  const err = (field: RegisterField) => (errors[field] ? t(errors[field]!) : undefined);
  return (
    <Page title={t(titleKey)}>
      <form className="form" onSubmit={submit} noValidate>
        <h2 className="form__heading">{t('auth.createAccount')}</h2>
        <Segmented
          label={t('auth.method')}
          value={type}
          onChange={(v) => (setType(v), setContact(''), setErrors({}))}
          options={[
            { value: 'email', label: t('auth.byEmail') },
            { value: 'phone', label: t('auth.byPhone') },
          ]}
        />
        <ContactField type={type} value={contact} onChange={setContact} areaCode={areaCode} onAreaCode={setAreaCode} error={err('contact')} />
        <Field label={t('auth.code')} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={setCode} error={err('code')} name="code" addon={<SendCodeButton onSend={sendCode} />} />
        <Field label={t('auth.password')} type="password" autoComplete="new-password" placeholder={t('auth.passwordHint')} value={password} onChange={setPassword} error={err('password')} name="password" />
        <Field label={t('auth.confirmPassword')} type="password" autoComplete="new-password" value={confirm} onChange={setConfirm} error={err('confirm')} name="re_password" />
        <Field label={t('auth.inviteCode')} value={invite} onChange={setInvite} name="invite_code" autoComplete="off" />
        <div className={`field${errors.agreement ? ' has-error' : ''}`}>
          <label className="check">
            <input type="checkbox" name="agreement" checked={agreement} onChange={(e) => setAgreement(e.target.checked)} aria-invalid={errors.agreement ? true : undefined} aria-describedby={errors.agreement ? 'agreement-error' : undefined} />
            <span>
              {t('auth.agreePrefix')} {t('auth.agreement')}
            </span>
          </label>
          <details className="agreement">
            <summary>{t('auth.agreement')}</summary>
            <p>{t('auth.agreementText')}</p>
          </details>
          {errors.agreement && (
            <p id="agreement-error" className="field__error" role="alert">
              {t(errors.agreement)}
            </p>
          )}
        </div>
        <button type="submit" className="button button--primary button--block" disabled={busy}>
          {t('auth.register')}
        </button>
        <div className="form__links">
          <span>
            {t('auth.haveAccount')} <Link to={PATHS.login}>{t('auth.login')}</Link>
          </span>
        </div>
      </form>
    </Page>
  );
}
