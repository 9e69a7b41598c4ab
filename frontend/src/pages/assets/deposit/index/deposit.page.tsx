import qrcode from 'qrcode-generator';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { unanswered, type ApiError } from '../../../../api/client';
import { walletApi, type DepositAddress } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { copyText } from '../../../../components/copy';
import { Empty, LoadFailed, Skeleton } from '../../../../components/feedback';
import { Segmented, SelectField } from '../../../../components/form';
import { Page } from '../../../../components/page';
import { useLoaded } from '../../../../components/use-loaded';
import { useSearchChoice } from '../../../../components/use-search-choice';

/** A QR code of the address as an SVG path (dark on white, whatever the theme, so scanners read it). */
function Qr({ text, label }: { text: string; label: string }) {
  const svg = useMemo(() => {
    const qr = qrcode(0, 'M');
    qr.addData(text);
    qr.make();
    return qr.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
  }, [text]);
  return <div className="qr" role="img" aria-label={label} dangerouslySetInnerHTML={{ __html: svg }} />;
}

/** Deposit: coin and chain, the operator-configured address with its QR code and copy; then report it. */
export function DepositPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { data: coins, failed, reload } = useLoaded(walletApi.currencies);
  // In the address: back from reporting the deposit (to copy the address again), still chosen.
  const [currencyId, setCurrencyId] = useSearchChoice('currency_id');
  const [chain, setChain] = useSearchChoice('chain');
  const [address, setAddress] = useState<DepositAddress | null>(null);
  const [missing, setMissing] = useState<string | null>(null);
  // No answer (or a server error): a retry, which bumps `attempt` (a refusal says why instead).
  const [noAnswer, setNoAnswer] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const coin = coins?.find((c) => String(c.currency_id) === currencyId) ?? coins?.find((c) => c.symbol === 'USDT') ?? coins?.[0];
  const chains = coin?.chains ?? [];
  const current = chains.find((c) => c.chain === chain) ?? chains.find((c) => c.deposit_available) ?? chains[0];
  useEffect(() => {
    setAddress(null);
    setMissing(null);
    setNoAnswer(false);
    if (!coin || !current) return;
    // Only the answer for the coin and chain shown now: an earlier one arriving late would put
    // another coin's address under this one.
    let live = true;
    walletApi.depositAddress(coin.currency_id, current.chain).then(
      (a) => live && setAddress(a),
      (e: unknown) => {
        if (!live) return;
        if (unanswered(e)) setNoAnswer(true);
        else setMissing((e as ApiError).message);
      },
    );
    return () => {
      live = false;
    };
  }, [coin?.currency_id, current?.chain, attempt]);
  return (
    <Page title={t(titleKey)} right={<Link className="button button--small" to={`${PATHS.assetsRecord}?tab=deposit`}>{t('funding.records')}</Link>}>
      {failed ? (
        <LoadFailed onRetry={() => void reload()} />
      ) : !coins || !coin ? (
        <Skeleton rows={5} />
      ) : (
        <div className="card form">
          <SelectField label={t('funding.coin')} value={String(coin.currency_id)} onChange={setCurrencyId} options={coins.map((c) => ({ value: String(c.currency_id), label: c.symbol }))} name="currency" />
          <div className="field">
            <span className="field__label">{t('funding.chain')}</span>
            <Segmented label={t('funding.chain')} value={current?.chain ?? ''} onChange={setChain} options={chains.map((c) => ({ value: c.chain, label: c.chain }))} />
          </div>
          {!current ? (
            // No network of this coin open for deposits (an operator closed them all): said, not a skeleton for ever.
            <Empty text={t('funding.noDepositChain', { symbol: coin.symbol })} />
          ) : noAnswer ? (
            <LoadFailed onRetry={() => setAttempt((n) => n + 1)} />
          ) : missing ? (
            <p className="field__error" role="alert" data-testid="no-address">{missing}</p>
          ) : !address ? (
            <Skeleton rows={2} />
          ) : (
            <>
              <Qr text={address.address} label={t('funding.qrLabel', { symbol: address.symbol, chain: address.chain })} />
              <p className="address-box" data-testid="deposit-address">{address.address}</p>
              <button type="button" className="button button--block" onClick={() => void copyText(address.address)}>
                {t('funding.copyAddress')}
              </button>
              <p className="muted small">{t('funding.depositHint', { symbol: address.symbol, chain: address.chain, min: address.min_deposit })}</p>
              <Link className="button button--primary button--block" to={`${PATHS.depositCharge}?currency_id=${address.currency_id}&chain=${encodeURIComponent(address.chain)}`} data-testid="go-charge">
                {t('funding.reportDeposit')}
              </Link>
            </>
          )}
        </div>
      )}
    </Page>
  );
}
