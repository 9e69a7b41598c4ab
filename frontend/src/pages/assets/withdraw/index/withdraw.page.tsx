import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { walletApi, type AddressEntry, type WithdrawInfo } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { FundPasswordNote } from '../../../../components/fund-password-hint';
import { isFundPassword } from '../../../../app/validation';
import { fateUnknown, useMoneySubmit } from '../../../../components/client-id';
import { cmp, isAmount, isPositive, stepDecimals, sub, typedDecimal } from '../../../../components/decimal';
import { LoadFailed, Skeleton } from '../../../../components/feedback';
import { Field, SelectField } from '../../../../components/form';
import { amountText } from '../../../../components/format';
import { Page } from '../../../../components/page';
import { useLoaded } from '../../../../components/use-loaded';
import { useSearchChoice } from '../../../../components/use-search-choice';

type Errors = Partial<Record<'address' | 'amount' | 'password', string>>;

/** Withdraw: chain, an address from the book, amount (fee included), remark, fund password; fee and arrival shown. */
export function WithdrawPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { data: coins, failed: coinsFailed, reload: reloadCoins } = useLoaded(walletApi.currencies);
  // The coin and network chosen live in the address: back from "Add address" they are still chosen,
  // and the address just added is offered (the page's own state started over).
  const [currencyId, setCurrencyId] = useSearchChoice('currency_id');
  const [info, setInfo] = useState<WithdrawInfo | null>(null);
  // The coin's rules or its address book not answered: a retry (bumps `infoRead`) instead of a
  // skeleton that never ends, or an empty book read as "set the withdrawal address first".
  const [infoFailed, setInfoFailed] = useState(false);
  const [infoRead, setInfoRead] = useState(0);
  const [book, setBook] = useState<AddressEntry[] | null>(null);
  const [chain, setChain] = useSearchChoice('chain');
  const [addressId, setAddressId] = useState(params.get('address_id') ?? '');
  const [amount, setAmount] = useState('');
  const [remark, setRemark] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const { busy, run, holds } = useMoneySubmit('withdraw');
  const coin = coins?.find((c) => String(c.currency_id) === currencyId) ?? coins?.find((c) => c.symbol === 'USDT') ?? coins?.[0];
  useEffect(() => {
    if (!coin) return;
    setInfo(null);
    setInfoFailed(false);
    setBook(null);
    // Only the answers for the coin shown now (an earlier coin's arriving late would set its fee and book).
    let live = true;
    walletApi.withdrawInfo(coin.currency_id).then(
      (i) => live && setInfo(i),
      () => live && setInfoFailed(true),
    );
    walletApi.addresses(coin.currency_id).then(
      (b) => {
        if (!live) return;
        setBook(b);
        // Opened with an address (the address picker): its chain is the one shown.
        const picked = b.find((a) => String(a.id) === addressId);
        if (picked) setChain(picked.chain);
      },
      () => live && setInfoFailed(true),
    );
    return () => {
      live = false;
    };
  }, [coin?.currency_id, infoRead]);
  const chains = info?.chains ?? [];
  const currentChain = chains.includes(chain) ? chain : (chains[0] ?? '');
  // The withdrawal names only its address, whose coin is the one withdrawn: never another coin's.
  const addresses = (book ?? []).filter((a) => a.currency_id === coin?.currency_id && a.chain === currentChain);
  const address = addresses.find((a) => String(a.id) === addressId) ?? addresses[0];
  const receive = info && isAmount(amount) && cmp(amount, info.fee) > 0 ? sub(amount, info.fee, info.decimals) : null;

  const request = () => ({ address_id: String(address?.id ?? ''), amount, password, remark: remark.trim() || undefined });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!info || !coin || !book) return;
    const found: Errors = {};
    if (!address) found.address = t('funding.setAddressFirst');
    if (!isAmount(amount) || !isPositive(amount)) found.amount = t('trade.amountEmpty');
    else if (stepDecimals(amount) > info.decimals) found.amount = t('common.amountDecimals', { decimals: info.decimals });
    else if (cmp(amount, info.min_amount) < 0) found.amount = t('funding.minWithdraw', { min: info.min_amount, symbol: info.symbol });
    // Not for the retry of an unanswered withdrawal: if that one went through, the balance shown has it frozen.
    else if (!holds(request()) && cmp(amount, info.available) > 0) found.amount = t('trade.insufficient');
    if (!password) found.password = t('funding.fundPasswordRequired');
    else if (!isFundPassword(password)) found.password = t('validation.fundPassword');
    setErrors(found);
    if (Object.keys(found).length) return;
    try {
      const r = request();
      const done = await run(r, (client_id) => walletApi.withdraw({ ...r, client_id }));
      if (done) navigate(`${PATHS.withdrawDetail}?id=${done.withdrawal_id}`, { replace: true });
    } catch (err) {
      // Shown by the client. Fate unknown (no answer, 2105–2107): it may have been frozen; the balance
      // and the day's requests left as they are now (the form stays as typed, for a retry with its id).
      if (fateUnknown(err)) {
        const id = coin.currency_id;
        walletApi.withdrawInfo(id).then(
          (i) => setInfo((shown) => (shown?.currency_id === id ? i : shown)),
          () => undefined,
        );
      }
    }
  };
  const blocked = info && (!info.has_fund_password ? 'fund' : info.verification_level < 1 ? 'kyc' : null);
  return (
    <Page
      title={t(titleKey)}
      right={
        <Link className="button button--small" to={`${PATHS.assetsRecord}?tab=withdraw`}>
          {t('funding.records')}
        </Link>
      }
    >
      {coinsFailed || infoFailed ? (
        <LoadFailed onRetry={() => void (coinsFailed ? reloadCoins() : setInfoRead((n) => n + 1))} />
      ) : !coins || !coin || !info ? (
        <Skeleton rows={6} />
      ) : (
        <form className="form card" onSubmit={submit} noValidate>
          {blocked === 'fund' && <FundPasswordNote />}
          {blocked === 'kyc' && (
            <p className="stale-badge" role="alert">
              {t('funding.kycFirst')} <Link to={PATHS.verification}>{t('titles.verification')}</Link>
            </p>
          )}
          <SelectField
            label={t('funding.coin')}
            value={String(coin.currency_id)}
            onChange={setCurrencyId}
            options={coins.map((c) => ({ value: String(c.currency_id), label: c.symbol }))}
            name="currency"
          />
          <SelectField label={t('funding.chain')} value={currentChain} onChange={setChain} options={chains.map((c) => ({ value: c, label: c }))} name="chain" />
          {!book ? (
            // The book still on its way: not "set the withdrawal address first".
            <Skeleton rows={1} />
          ) : addresses.length ? (
            <SelectField
              label={t('funding.address')}
              value={String(address?.id ?? '')}
              onChange={setAddressId}
              options={addresses.map((a) => ({
                value: String(a.id),
                label: `${a.remark ? `${a.remark} · ` : ''}${a.address.slice(0, 8)}…${a.address.slice(-6)}`,
              }))}
              name="address"
            />
          ) : (
            <div className="field has-error">
              <span className="field__label">{t('funding.address')}</span>
              <p className="field__error" role="alert">
                {errors.address ?? t('funding.setAddressFirst')}
              </p>
              <Link
                className="button"
                to={`${PATHS.addressCreate}?currency_id=${coin.currency_id}&chain=${encodeURIComponent(currentChain)}`}
                data-testid="add-address"
              >
                {t('titles.addressCreate')}
              </Link>
            </div>
          )}
          <Field
            label={t('funding.amount', { symbol: info.symbol })}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={typedDecimal(setAmount)}
            error={errors.amount}
            name="amount"
            addon={
              <button type="button" className="button button--small" onClick={() => setAmount(info.available)}>
                {t('funding.all')}
              </button>
            }
          />
          <dl className="rows rows--compact">
            <div>
              <dt>{t('trade.available')}</dt>
              <dd className="num" data-testid="withdraw-available">
                {amountText(info.available)} {info.symbol}
              </dd>
            </div>
            <div>
              <dt>{t('funding.fee')}</dt>
              <dd className="num" data-testid="withdraw-fee">
                {info.fee} {info.symbol}
              </dd>
            </div>
            <div>
              <dt>{t('funding.receive')}</dt>
              <dd className="num" data-testid="withdraw-receive">
                {receive ? amountText(receive) : '--'} {info.symbol}
              </dd>
            </div>
            <div>
              <dt>{t('funding.arrival')}</dt>
              <dd>{t('funding.arrivalHours', { hours: info.arrival_hours })}</dd>
            </div>
            <div>
              <dt>{t('funding.today')}</dt>
              <dd>{t('funding.requestsLeft', { left: info.remaining_requests_today, total: info.requests_per_day })}</dd>
            </div>
            <div>
              <dt>{t('funding.dailyLimit')}</dt>
              <dd className="num" data-testid="withdraw-daily-limit">
                {t('funding.amountLeft', { left: amountText(info.remaining_amount_today_usdt), total: amountText(info.daily_limit_usdt) })}
              </dd>
            </div>
          </dl>
          <Field label={t('funding.remark')} autoComplete="off" maxLength={200} value={remark} onChange={setRemark} name="remark" />
          <Field
            label={t('security.fundInput')}
            type="password"
            inputMode="numeric"
            autoComplete="off"
            maxLength={6}
            value={password}
            onChange={setPassword}
            error={errors.password}
            name="password"
          />
          <button type="submit" className="button button--primary button--block" disabled={busy || !!blocked} data-testid="withdraw-submit">
            {t('menu.withdraw')}
          </button>
        </form>
      )}
    </Page>
  );
}
