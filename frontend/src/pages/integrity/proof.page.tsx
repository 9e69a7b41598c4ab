import { PROOF_DECIMALS, verifyProof, type LiabilityProof, type ProofVerification } from '@kestrel/contracts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { downloadProof, proofApi, type PublishedRoot } from '../../api/proof';
import { walletApi } from '../../api/wallet';
import { PATHS } from '../../app/paths';
import { Skeleton } from '../../components/feedback';
import { Page } from '../../components/page';
import { toast } from '../../stores/toast.store';
import { formatTime } from '../../components/format';

/** Units per currency when the root does not say: 10^-18 for every currency (the ledger's scale, docs/integrity.md). */
const DEFAULT_DECIMALS = PROOF_DECIMALS;

/** Integer units → a decimal string at `decimals`, grouped, trailing zeros dropped (strings only, no float). */
export function formatUnits(units: string, decimals: number): string {
  const neg = units.startsWith('-');
  const digits = (neg ? units.slice(1) : units).replace(/^0+(?=\d)/, '').padStart(decimals + 1, '0');
  const int = digits.slice(0, digits.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${neg ? '−' : ''}${int}${frac ? `.${frac}` : ''}`;
}

const short = (hash: string | undefined) => (hash && hash.length > 20 ? `${hash.slice(0, 8)}…${hash.slice(-8)}` : (hash ?? '--'));

/** The verdict over the proof, the published roots and their totals. */
export interface Verdict {
  ok: boolean;
  /** 0 = the leaf, n = path step n; the root comparison counts as the last step. */
  failedStep?: number;
  reason?: string;
  run: ProofVerification;
  published?: PublishedRoot;
}

/**
 * Verifies in the browser (the contracts verifier, @noble/hashes; no Web Crypto): the path from
 * the leaf recomputes to the proof's root, that root is a published one, and the recomputed
 * root's sums are the published totals.
 */
export function judge(proof: LiabilityProof, roots: PublishedRoot[]): Verdict {
  const run = verifyProof(proof);
  const last = run.steps.length;
  const published = roots.find((r) => r.root === String(proof.root).toLowerCase());
  if (!run.ok) return { ok: false, failedStep: run.failedStep, reason: run.reason === 'root-mismatch' ? 'rootMismatch' : run.reason, run, published };
  const sameCurrencies = published && published.currencies.length === proof.currencies.length && published.currencies.every((c, i) => c === proof.currencies[i]);
  if (!published || !sameCurrencies) return { ok: false, failedStep: last, reason: 'notPublished', run, published };
  const sums = last ? run.steps[last - 1].resultSums : (run.leaf?.sums ?? []);
  if (sums.length !== published.totals.length || sums.some((s, i) => BigInt(s) !== BigInt(published.totals[i])))
    return { ok: false, failedStep: last, reason: 'totals', run, published };
  return { ok: true, run, published };
}

type Loaded = { proof: LiabilityProof; roots: PublishedRoot[]; symbols: Map<number, string> } | 'none' | { error: string };

/** `/proof`: the user's proof of liabilities, verified step by step on the device. */
export function ProofPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [data, setData] = useState<Loaded | null>(null);
  const load = useCallback(async () => {
    setData(null);
    try {
      const roots = await proofApi.roots();
      if (!roots.length) return setData('none');
      const [proof, currencies] = await Promise.all([proofApi.mine(), walletApi.currencies().catch(() => [])]);
      setData({ proof, roots, symbols: new Map(currencies.map((c) => [c.currency_id, c.symbol])) });
    } catch (err) {
      // A business refusal (e.g. no proof for this account yet) carries the server's message.
      setData({ error: err instanceof ApiError && err.code !== 0 ? err.message : '' });
    }
  }, []);
  useEffect(() => void load(), [load]);

  return (
    <Page title={t(titleKey)}>
      <section className="card">
        <p className="integrity__intro">{t('integrity.proof.intro')}</p>
        <Link to={PATHS.integrity} className="small">
          {t('titles.integrity')}
        </Link>
      </section>
      {data === null ? (
        <section className="card">
          <p role="status">{t('integrity.proof.verifying')}</p>
          <Skeleton rows={4} />
        </section>
      ) : data === 'none' ? (
        <section className="card">
          <p role="status" data-testid="proof-none">
            {t('integrity.proof.none')}
          </p>
        </section>
      ) : 'error' in data ? (
        <section className="card">
          <p role="alert" data-testid="proof-load-failed">
            {data.error || t('integrity.proof.loadFailed')}
          </p>
          <button type="button" className="button button--block" onClick={() => void load()}>
            {t('common.retry')}
          </button>
        </section>
      ) : (
        <ProofView proof={data.proof} roots={data.roots} symbols={data.symbols} />
      )}
    </Page>
  );
}

function ProofView({ proof, roots, symbols }: { proof: LiabilityProof; roots: PublishedRoot[]; symbols: Map<number, string> }) {
  const { t } = useTranslation();
  const verdict = judge(proof, roots);
  const { run, published } = verdict;
  const decimals = (i: number) => published?.decimals?.[i] ?? roots[0]?.decimals?.[i] ?? DEFAULT_DECIMALS;
  const name = (i: number) => symbols.get(proof.currencies[i]) ?? `#${proof.currencies[i]}`;
  /** The non-zero amounts of a sums list, "SYMBOL amount" each (kept together when a line wraps); "0" when all are zero. */
  const sumsText = (sums: readonly string[]) => {
    const parts = sums.flatMap((s, i) => (/^0*$/.test(s) ? [] : [`${name(i)} ${formatUnits(s, decimals(i))}`]));
    if (!parts.length) return '0';
    return parts.map((part, k) => (
      <span key={k}>
        {k > 0 && ' · '}
        <span className="proof__amount">{part}</span>
      </span>
    ));
  };
  const failed = (level: number) => !verdict.ok && verdict.failedStep === level;
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    try {
      await downloadProof();
    } catch {
      toast(t('common.networkError'));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <section
        className={`card proof__verdict ${verdict.ok ? 'is-ok' : 'is-bad'}`}
        data-testid="proof-verdict"
        data-ok={verdict.ok ? '1' : '0'}
        data-failed-step={verdict.failedStep ?? ''}
        role={verdict.ok ? 'status' : 'alert'}
      >
        <h2 className="proof__verdict-title">
          <span aria-hidden="true">{verdict.ok ? '✓ ' : '✗ '}</span>
          {verdict.ok ? t('integrity.proof.verified') : t('integrity.proof.failed', { step: verdict.failedStep ?? 0 })}
        </h2>
        <p>{verdict.ok ? t('integrity.proof.verifiedText') : t(`integrity.proof.why.${verdict.reason ?? 'rootMismatch'}`)}</p>
        {!verdict.ok && <p className="small">{t('integrity.proof.failedText')}</p>}
      </section>

      <section className="card proof" aria-labelledby="proof-leaf">
        <h2 id="proof-leaf" className="card__title">
          {t('integrity.proof.leaf')} <span className="muted small">· {t('integrity.proof.step', { n: 0 })}</span>
        </h2>
        <dl className="rows rows--compact">
          <div>
            <dt>{t('integrity.proof.balances')}</dt>
            <dd className="num" data-testid="proof-balances">
              {proof.balances.map((b, i) => (
                <span key={i} className="block proof__amount">
                  {name(i)} {/^\d+$/.test(b) ? formatUnits(b, decimals(i)) : b}
                </span>
              ))}
            </dd>
          </div>
          <div>
            <dt>{t('integrity.proof.salt')}</dt>
            <dd>
              <code title={proof.salt}>{short(proof.salt)}</code>
            </dd>
          </div>
          <div>
            <dt>{t('integrity.proof.computed')}</dt>
            <dd>
              <code title={run.leaf?.hash}>{short(run.leaf?.hash)}</code>
              {failed(0) && <StepMark bad />}
            </dd>
          </div>
        </dl>
      </section>

      <section className="card proof" aria-labelledby="proof-path">
        <h2 id="proof-path" className="card__title">
          {t('integrity.proof.path')}
        </h2>
        <ol className="proof__steps" data-testid="proof-steps">
          {run.steps.map((s) => (
            <li key={s.level} className={failed(s.level) ? 'is-bad' : ''} data-testid="proof-step" data-level={s.level}>
              <div className="proof__step-head">
                <strong>{t('integrity.proof.step', { n: s.level })}</strong>
                <span className="muted small">
                  <span aria-hidden="true">{s.side === 'left' ? '◀ ' : '▶ '}</span>
                  {t(`integrity.proof.side.${s.side}`)}
                </span>
              </div>
              <dl className="rows rows--compact">
                <div>
                  <dt>{t('integrity.proof.sibling')}</dt>
                  <dd>
                    <code title={s.hash}>{short(s.hash)}</code>
                  </dd>
                </div>
                <div>
                  <dt>{t('integrity.proof.siblingSums')}</dt>
                  <dd className="num small">{sumsText(s.sums)}</dd>
                </div>
                <div>
                  <dt>{t('integrity.proof.computed')}</dt>
                  <dd>
                    <code title={s.resultHash}>{short(s.resultHash)}</code>
                    {failed(s.level) && <StepMark bad />}
                  </dd>
                </div>
              </dl>
            </li>
          ))}
        </ol>
        <dl className="rows rows--compact">
          <div>
            <dt>{t('integrity.proof.computedRoot')}</dt>
            <dd>
              <code title={run.root}>{short(run.root)}</code>
            </dd>
          </div>
          <div>
            <dt>{t('integrity.proof.root')}</dt>
            <dd>
              <code title={proof.root} data-testid="proof-root">
                {short(proof.root)}
              </code>
              <StepMark bad={!verdict.ok} />
            </dd>
          </div>
        </dl>
      </section>

      {published && (
        <section className="card proof" aria-labelledby="proof-totals">
          <h2 id="proof-totals" className="card__title">
            {t('integrity.proof.totals')}
          </h2>
          <dl className="rows rows--compact" data-testid="proof-totals">
            {published.totals.map((units, i) => (
              <div key={published.currencies[i]}>
                <dt>{symbols.get(published.currencies[i]) ?? `#${published.currencies[i]}`}</dt>
                <dd className="num">{formatUnits(units, decimals(i))}</dd>
              </div>
            ))}
          </dl>
          <dl className="rows rows--compact">
            <div>
              <dt>{t('integrity.proof.publishedAt')}</dt>
              <dd className="num">{formatTime(published.time, 'both', { hour12: false })}</dd>
            </div>
            <div>
              <dt>{t('integrity.proof.watermark')}</dt>
              <dd className="num small proof__amount">
                {/* A number stays with its label when the line wraps. */}
                {t('integrity.proof.watermarkValue', { seq: published.watermark.seq, entry: published.watermark.ledgerEntryId }).replace(/ (?=\d)/g, '\u00a0')}
              </dd>
            </div>
          </dl>
        </section>
      )}

      <section className="card">
        <button type="button" className="button button--primary button--block" onClick={() => void save()} disabled={saving} data-testid="proof-download">
          {t('integrity.proof.download')}
        </button>
        <p className="muted small">{t('integrity.proof.offline')}</p>
      </section>
    </>
  );
}

function StepMark({ bad }: { bad: boolean }) {
  const { t } = useTranslation();
  return (
    <span className={`proof__mark ${bad ? 'is-bad' : 'is-ok'}`} data-testid={bad ? 'step-bad' : 'step-ok'}>
      <span aria-hidden="true">{bad ? '✗' : '✓'}</span>
      <span className="visually-hidden">{t(bad ? 'integrity.proof.bad' : 'integrity.proof.ok')}</span>
    </span>
  );
}
