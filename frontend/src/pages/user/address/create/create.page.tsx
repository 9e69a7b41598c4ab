import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { api } from '../../../../api/endpoints';
import { walletApi } from '../../../../api/wallet';
import { FundPasswordNote } from '../../../../components/fund-password-hint';
import { isFundPassword } from '../../../../app/validation';
import { LoadFailed, Skeleton } from '../../../../components/feedback';
import { Field, SelectField, SendCodeButton } from '../../../../components/form';
import { Page } from '../../../../components/page';
import { useLoaded } from '../../../../components/use-loaded';
import { maskContact, useFreshUser } from '../../../../components/use-user';
import { toast } from '../../../../stores/toast.store';

type Errors = Partial<Record<'address' | 'password' | 'code', string>>;

/** Add a withdrawal address: coin, chain, address, remark, fund password and a code (purpose `address`). */
export function AddressCreatePage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const user = useFreshUser();
  const { data: coins, failed, reload } = useLoaded(walletApi.currencies);
  const [currencyId, setCurrencyId] = useState(params.get('currency_id') ?? '');
  const [chain, setChain] = useState(params.get('chain') ?? '');
  const [address, setAddress] = useState('');
  const [remark, setRemark] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const coin = coins?.find((c) => String(c.currency_id) === currencyId) ?? coins?.find((c) => c.symbol === 'USDT') ?? coins?.[0];
  const chains = coin?.chains.map((c) => c.chain) ?? [];
  const currentChain = chains.includes(chain) ? chain : (chains[0] ?? '');
  const channel = user?.phone ? 'phone' : user?.email ? 'email' : null;

  const sendCode = async () => {
    if (!channel) return false;
    try {
      toast(await api.sendCode(channel, 'address'));
      return true;
    } catch {
      return false;
    }
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!coin || !channel) return;
    const found: Errors = {};
    if (!address.trim()) found.address = t('address.required');
    if (!isFundPassword(password)) found.password = t('validation.fundPassword');
    if (!code.trim()) found.code = t('validation.codeRequired');
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      await walletApi.addAddress({ currency_id: coin.currency_id, chain: currentChain, address: address.trim(), password, code: code.trim(), channel: channel === 'phone' ? 'sms' : 'email', remark: remark.trim() || undefined });
      toast(t('address.bound'));
      navigate(-1);
    } catch {
      // shown by the client
    } finally {
      setBusy(false);
    }
  };
  return (
    <Page title={t(titleKey)}>
      {failed ? (
        <LoadFailed onRetry={() => void reload()} />
      ) : !coins || !coin || !user ? (
        <Skeleton rows={6} />
      ) : (
        <form className="form card" onSubmit={submit} noValidate>
          {!user.has_fund_password && <FundPasswordNote />}
          <SelectField label={t('funding.coin')} value={String(coin.currency_id)} onChange={setCurrencyId} options={coins.map((c) => ({ value: String(c.currency_id), label: c.symbol }))} name="currency" />
          <SelectField label={t('funding.chain')} value={currentChain} onChange={setChain} options={chains.map((c) => ({ value: c, label: c }))} name="chain" />
          <Field label={t('funding.address')} autoComplete="off" spellCheck={false} value={address} onChange={setAddress} error={errors.address} name="address" />
          <Field label={t('address.remark')} autoComplete="off" maxLength={64} value={remark} onChange={setRemark} name="remark" />
          <Field label={t('security.fundInput')} type="password" inputMode="numeric" autoComplete="off" maxLength={6} value={password} onChange={setPassword} error={errors.password} name="password" />
          <Field label={t('auth.code')} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={setCode} error={errors.code} name="code" addon={<SendCodeButton onSend={sendCode} disabled={!channel} />} />
          <p className="muted small">{channel ? t('security.codeTo', { target: maskContact(user) }) : t('security.noContact')}</p>
          <button type="submit" className="button button--primary button--block" disabled={busy || !user.has_fund_password} data-testid="address-submit">
            {t('common.submit')}
          </button>
        </form>
      )}
    </Page>
  );
}
