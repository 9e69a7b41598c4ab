import { useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { accountParam, walletApi, type AccountType } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { fateUnknown, useMoneySubmit } from '../../../../components/client-id';
import { cmp, isAmount, isPositive, typedDecimal } from '../../../../components/decimal';
import { LoadFailed, Skeleton } from '../../../../components/feedback';
import { Field, SelectField } from '../../../../components/form';
import { amountText } from '../../../../components/format';
import { Page } from '../../../../components/page';
import { useLoaded } from '../../../../components/use-loaded';
import { useSearchChoice } from '../../../../components/use-search-choice';
import { toast } from '../../../../stores/toast.store';

/** Transfer between the user's accounts (`wallet/curChange` routes, `wallet/change` with a client id). */
export function TransferPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { data: options, failed, reload: load } = useLoaded(walletApi.transferOptions);
  // The coin and accounts chosen live in the address: back from the records, still chosen. A page
  // that sends people here for funds says where they go (`?to=lever`); the other side defaults to
  // the trade account.
  const [currencyId, setCurrencyId] = useSearchChoice('currency_id');
  const [toParam, setTo] = useSearchChoice('to');
  const [fromParam, setFrom] = useSearchChoice('from');
  const wantedTo: AccountType = accountParam(toParam) ?? 'option';
  const wantedFrom: AccountType = accountParam(fromParam) ?? (wantedTo === 'coin' ? 'option' : 'coin');
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string>();
  const { busy, run, holds } = useMoneySubmit('transfer');
  const coin = useMemo(() => options?.currencies.find((c) => String(c.currency_id) === currencyId) ?? options?.currencies.find((c) => c.symbol === 'USDT') ?? options?.currencies[0], [options, currencyId]);
  const routes = coin?.routes ?? [];
  // The accounts asked for when this coin can move between them, else its first route's.
  const froms = [...new Set(routes.map((r) => r.from))];
  const from = froms.length && !froms.includes(wantedFrom) ? froms[0] : wantedFrom;
  const tos = routes.filter((r) => r.from === from).map((r) => r.to);
  const to = tos.length && !tos.includes(wantedTo) ? tos[0] : wantedTo;
  const available = coin?.available[from] ?? '0';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    if (!coin) return;
    if (!isAmount(amount) || !isPositive(amount)) return setError(t('trade.amountEmpty'));
    const request = { from, to, currency_id: coin.currency_id, amount };
    // Not for the retry of an unanswered transfer: if that one went through, the balance shown has paid for it.
    if (!holds(request) && cmp(amount, available) > 0) return setError(t('trade.insufficient'));
    try {
      const done = await run(request, (client_id) => walletApi.transfer({ ...request, client_id }));
      if (!done) return;
      toast(t('funding.transferDone'));
      setAmount('');
      await load();
    } catch (err) {
      // Shown by the client. Fate unknown (no answer, 2105–2107): the transfer may have happened (a
      // 2107 into the trade account has debited the other account already): the balances as they are now.
      if (fateUnknown(err)) await load();
    }
  };
  const accountOption = (a: AccountType) => ({ value: a, label: t(`assets.account.${a}`) });
  return (
    <Page title={t(titleKey)} right={<Link className="button button--small" to={PATHS.transferRecord}>{t('funding.records')}</Link>}>
      {failed ? (
        <LoadFailed onRetry={() => void load()} />
      ) : !options || !coin ? (
        <Skeleton rows={4} />
      ) : (
        <form className="form card" onSubmit={submit} noValidate>
          <SelectField label={t('funding.coin')} value={String(coin.currency_id)} onChange={setCurrencyId} options={options.currencies.map((c) => ({ value: String(c.currency_id), label: c.symbol }))} name="currency" />
          <SelectField label={t('funding.from')} value={from} onChange={setFrom} options={froms.map(accountOption)} name="from" />
          <SelectField label={t('funding.to')} value={to} onChange={setTo} options={tos.map(accountOption)} name="to" />
          <Field
            label={t('funding.amount', { symbol: coin.symbol })}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={typedDecimal(setAmount)}
            error={error}
            name="amount"
            addon={
              <button type="button" className="button button--small" onClick={() => setAmount(available)}>
                {t('funding.all')}
              </button>
            }
          />
          <p className="muted small" data-testid="transfer-available">
            {t('funding.availableIn', { amount: amountText(available), symbol: coin.symbol, account: t(`assets.account.${from}`) })}
          </p>
          <button type="submit" className="button button--primary button--block" disabled={busy} data-testid="transfer-submit">
            {t('titles.transfer')}
          </button>
        </form>
      )}
    </Page>
  );
}
