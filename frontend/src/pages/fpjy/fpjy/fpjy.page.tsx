import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { CONVERSIONS_PAGE, walletApi, type FlashQuote, type UserCurrency } from '../../../api/wallet';
import { fateUnknown, useMoneySubmit } from '../../../components/client-id';
import { cmp, isAmount, isPositive, typedDecimal } from '../../../components/decimal';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Field, SelectField } from '../../../components/form';
import { FundPasswordHint } from '../../../components/fund-password-hint';
import { Page } from '../../../components/page';
import { PagedList } from '../../../components/paged-list';
import { useLoaded } from '../../../components/use-loaded';
import { usePaged } from '../../../components/use-paged';
import { toast } from '../../../stores/toast.store';
import { amountText, formatTime } from '../../../components/format';

/** The user's coins that the desk converts (fpjy/coins): any other would only be refused. */
const flashCoins = (): Promise<UserCurrency[]> =>
  Promise.all([walletApi.currencies(), walletApi.flashCoins()]).then(([mine, desk]) => mine.filter((c) => desk.some((d) => d.currency_id === c.currency_id)));

/** Flash exchange: a 15 s quote from the last trades, then one conversion with the quote id as its command id. */
export function FpjyPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { data: coins, failed, reload: reloadCoins } = useLoaded(flashCoins);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string>();
  // With its end on this phone's clock: the lifetime counted from its arrival (the phone's clock may differ from the server's).
  const [quote, setQuote] = useState<(FlashQuote & { ends: number }) | null>(null);
  const [left, setLeft] = useState(0);
  /** The kept quote's conversion had no answer (or 2105–2107): it may have happened, so it is retried with the same quote id, expired or not. */
  const [unanswered, setUnanswered] = useState(false);
  // The user's conversions, 20 at a time; a new one goes on top of the pages shown.
  const history = usePaged(walletApi.conversions, CONVERSIONS_PAGE, { idOf: (h) => h.quote_id });
  const [quoting, setQuoting] = useState(false);
  const { busy, run } = useMoneySubmit('fpjy');
  // After a conversion (or one of unknown fate): the balances and the history as they are now.
  const load = () => {
    void reloadCoins();
    history.refresh();
  };
  useEffect(() => void history.refresh(), []);
  const fromCoin = coins?.find((c) => String(c.currency_id) === from) ?? coins?.find((c) => c.symbol === 'USDT') ?? coins?.[0];
  const toCoin = coins?.find((c) => String(c.currency_id) === to && c !== fromCoin) ?? coins?.find((c) => c !== fromCoin);
  // The form as the user left it: a quote asked for before its last change is not shown (it would
  // convert the amount or coins of then, not the ones in the fields).
  const form = useRef(0);
  useEffect(() => {
    form.current += 1;
    setQuote(null);
    setUnanswered(false);
  }, [from, to, amount]);
  useEffect(() => {
    if (!quote) return;
    const tick = () => setLeft(Math.max(0, Math.ceil((quote.ends - Date.now()) / 1000)));
    tick();
    const timer = setInterval(tick, 500);
    return () => clearInterval(timer);
  }, [quote]);

  const getQuote = async (e: FormEvent) => {
    e.preventDefault();
    // Enter in the amount field submits the form: never while a conversion is in flight or its fate
    // unknown, whose kept quote (its id is the command id) a new quote would replace.
    if (busy || unanswered || quoting) return;
    setError(undefined);
    if (!fromCoin || !toCoin) return;
    if (!isAmount(amount) || !isPositive(amount)) return setError(t('trade.amountEmpty'));
    if (cmp(amount, fromCoin.available) > 0) return setError(t('trade.insufficient'));
    setQuoting(true);
    const asked = form.current;
    try {
      const answer = await walletApi.quote({ from_currency_id: fromCoin.currency_id, to_currency_id: toCoin.currency_id, amount });
      if (asked !== form.current) return;
      setQuote({ ...answer, ends: answer.expires_in !== undefined ? Date.now() + answer.expires_in * 1000 : Date.parse(answer.expires_at) });
      setUnanswered(false);
    } catch {
      // shown by the client
    } finally {
      setQuoting(false);
    }
  };
  const convert = async () => {
    if (!quote) return;
    try {
      // The quote id is the conversion's command id: a retry converts once.
      const done = await run(quote.quote_id, () => walletApi.convert(quote.quote_id));
      if (!done) return;
      toast(t('fpjy.done'));
      setQuote(null);
      setUnanswered(false);
      setAmount('');
      load();
    } catch (err) {
      // Fate unknown (no answer, 2105–2107): the conversion may have happened. Keep the quote, so a
      // retry sends the same quote id (the server converts once and answers `duplicate`), and show
      // the balances as they are now. Any other refusal ends the quote.
      if (fateUnknown(err)) setUnanswered(true);
      else {
        setQuote(null);
        setUnanswered(false);
      }
      load();
    }
  };
  const options = coins?.map((c) => ({ value: String(c.currency_id), label: c.symbol })) ?? [];
  return (
    <Page title={t(titleKey)}>
      {failed ? (
        <LoadFailed onRetry={() => void reloadCoins()} />
      ) : !coins ? (
        <Skeleton rows={5} />
      ) : !fromCoin || !toCoin ? (
        // Fewer than two coins the desk converts: nothing to exchange (not a skeleton for ever).
        <Empty text={t('fpjy.noPairs')} />
      ) : (
        <form className="form card" onSubmit={getQuote} noValidate>
          <SelectField label={t('fpjy.from')} value={String(fromCoin.currency_id)} onChange={setFrom} options={options} name="from" />
          <Field
            label={t('funding.amount', { symbol: fromCoin.symbol })}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={typedDecimal(setAmount)}
            error={error}
            name="amount"
            addon={
              <button type="button" className="button button--small" onClick={() => setAmount(fromCoin.available)}>
                {t('funding.all')}
              </button>
            }
          />
          <p className="muted small">
            {t('trade.available')}:{' '}
            <span className="num" data-testid="fpjy-available">
              {amountText(fromCoin.available)}
            </span>{' '}
            {fromCoin.symbol}
          </p>
          <SelectField
            label={t('fpjy.to')}
            value={String(toCoin.currency_id)}
            onChange={setTo}
            options={options.filter((o) => o.value !== String(fromCoin.currency_id))}
            name="to"
          />
          <FundPasswordHint />
          {quote && (left > 0 || unanswered) ? (
            <>
              <dl className="rows" data-testid="fpjy-quote">
                <div>
                  <dt>{t('fpjy.from')}</dt>
                  <dd className="num" data-testid="fpjy-quoted-amount">
                    {amountText(quote.amount)} {quote.from_symbol}
                  </dd>
                </div>
                <div>
                  <dt>{t('fpjy.rate')}</dt>
                  <dd className="num">
                    1 {quote.from_symbol} ≈ {quote.rate} {quote.to_symbol}
                  </dd>
                </div>
                <div>
                  <dt>{t('funding.fee')}</dt>
                  <dd className="num">
                    {quote.fee} {quote.to_symbol}
                  </dd>
                </div>
                <div>
                  <dt>{t('fpjy.receive')}</dt>
                  <dd className="num" data-testid="fpjy-receive">
                    {quote.receive} {quote.to_symbol}
                  </dd>
                </div>
              </dl>
              <button type="button" className="button button--primary button--block" onClick={() => void convert()} disabled={busy} data-testid="fpjy-convert">
                {unanswered ? t('common.retry') : t('fpjy.convert', { seconds: left })}
              </button>
            </>
          ) : (
            <button type="submit" className="button button--primary button--block" disabled={quoting} data-testid="fpjy-quote-button">
              {quote ? t('fpjy.expired') : t('fpjy.getQuote')}
            </button>
          )}
        </form>
      )}
      <section className="card" aria-labelledby="fpjy-history">
        <h2 id="fpjy-history" className="card__title">
          {t('fpjy.history')}
        </h2>
        <PagedList list={history} skeleton={<Skeleton rows={2} />}>
          {(items) => (
            <ul className="list" data-testid="fpjy-history">
              {items.map((h) => (
                <li key={h.quote_id} className="record">
                  <div className="record__head">
                    <strong className="num">
                      {h.amount} {h.from_symbol} → {h.receive} {h.to_symbol}
                    </strong>
                  </div>
                  <div className="muted small">{h.created_at ? formatTime(h.created_at) : ''}</div>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
      </section>
    </Page>
  );
}
