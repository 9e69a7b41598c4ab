import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { PROMOTION_PAGE_SIZE, promotionApi, type InviteInfo, type MyInvite, type Ranking } from '../../../api/promotion';
import { copyText } from '../../../components/copy';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { Field, Segmented } from '../../../components/form';
import { Page } from '../../../components/page';
import { usePaged } from '../../../components/use-paged';
import { toast } from '../../../stores/toast.store';
import { drawPoster } from '../poster';
import '../promotion.css';
import { formatTime } from '../../../components/format';

type Tab = 'records' | 'invitees';

/**
 * `promotion/index` (spec §2, §3): invite code and link (copy), the poster (a PNG drawn here with
 * the link's QR code; save image), rebate ratio, promoted count, total and pending rebate, the
 * partner's authorization code, the top 10 ranking, rebate records and the invited users.
 */
export function PromotionPage({ titleKey }: { titleKey: string }) {
  const { t, i18n } = useTranslation();
  const [info, setInfo] = useState<InviteInfo | null | undefined>(undefined);
  const [mine, setMine] = useState<MyInvite | null>(null);
  // null while it loads; 'failed': no answer (a retry is offered, not an empty ranking).
  const [ranking, setRanking] = useState<Ranking | null | 'failed'>(null);
  // New records arrive at the top between two pages: one already shown is not shown twice.
  const records = usePaged(promotionApi.records, PROMOTION_PAGE_SIZE, { idOf: (r) => r.id });
  // Invitees have no id in the answer: the masked account with its registration time tells them apart.
  const invitees = usePaged(promotionApi.invitees, PROMOTION_PAGE_SIZE, { idOf: (i) => `${i.account} ${i.registered_at}` });
  // undefined while drawing, null when the poster could not be loaded or drawn.
  const [poster, setPoster] = useState<string | null | undefined>(undefined);
  const [tab, setTab] = useState<Tab>('records');
  const shown = tab === 'records' ? records : invitees;
  const [authCode, setAuthCode] = useState('');
  const [bindError, setBindError] = useState<string | null>(null);
  const [binding, setBinding] = useState(false);

  const loadRanking = () => {
    setRanking(null);
    promotionApi.ranking().then(setRanking, () => setRanking('failed'));
  };
  const load = () => {
    promotionApi.invite().then(setInfo, () => setInfo(null));
    promotionApi.myInvite().then(setMine, () => setMine(null));
    loadRanking();
    records.reload();
    invitees.reload();
  };
  useEffect(load, []);
  const loadPoster = useCallback(() => {
    setPoster(undefined);
    promotionApi.poster().then(
      (p) => setPoster(drawPoster({ ...p, codeLabel: t('promotion.inviteCode') }) ?? null),
      () => setPoster(null),
    );
  }, [t]);
  useEffect(loadPoster, [loadPoster, i18n.language]);

  const bind = async (e: FormEvent) => {
    e.preventDefault();
    setBindError(null);
    if (!/^[A-Za-z0-9]{4,12}$/.test(authCode.trim())) return setBindError(t('promotion.authCodeInvalid'));
    if (binding) return;
    setBinding(true);
    try {
      await promotionApi.bind(authCode.trim());
      toast(t('promotion.bound'));
      setAuthCode('');
      load();
    } catch (err) {
      setBindError(err instanceof Error ? err.message : t('common.error'));
    } finally {
      setBinding(false);
    }
  };

  return (
    <Page title={t(titleKey)} className="promotion">
      {info === undefined ? (
        <Skeleton rows={4} />
      ) : info === null ? (
        <LoadFailed
          onRetry={() => {
            setInfo(undefined);
            load();
          }}
        />
      ) : (
        <>
          <section className="card promotion__summary" aria-label={t('promotion.summary')}>
            <div className="promotion__stats">
              <div>
                <span className="muted">{t('promotion.ratio')}</span>
                <strong data-testid="promotion-ratio">{pctOf(info.ratio)}</strong>
              </div>
              <div>
                <span className="muted">{t('promotion.promoted')}</span>
                <strong>{info.promoted_count}</strong>
              </div>
              <div>
                <span className="muted">{t('promotion.totalRebate', { coin: info.rebate_currency })}</span>
                <strong>{info.total_rebate}</strong>
              </div>
              <div>
                <span className="muted">{t('promotion.pendingRebate', { coin: info.rebate_currency })}</span>
                <strong>{info.pending_rebate}</strong>
              </div>
            </div>
            {info.rebates.filter((r) => r.currency !== info.rebate_currency).length > 0 && (
              <p className="muted promotion__others">
                {info.rebates
                  .filter((r) => r.currency !== info.rebate_currency)
                  .map((r) => `${r.total} ${r.currency}`)
                  .join(' · ')}
              </p>
            )}
            <div className="promotion__row">
              <span className="muted">{t('promotion.inviteCode')}</span>
              <strong data-testid="invite-code">{info.invite_code}</strong>
              <button
                type="button"
                className="button button--small"
                onClick={() => void copyText(info.invite_code)}
                aria-label={`${t('common.copy')} ${t('promotion.inviteCode')}`}
              >
                {t('common.copy')}
              </button>
            </div>
            <div className="promotion__row">
              <span className="muted">{t('promotion.link')}</span>
              <span className="promotion__link" data-testid="invite-link">
                {info.link}
              </span>
              <button
                type="button"
                className="button button--small"
                data-testid="copy-link"
                onClick={() => void copyText(info.link)}
                aria-label={`${t('common.copy')} ${t('promotion.link')}`}
              >
                {t('common.copy')}
              </button>
            </div>
            {mine && (
              <p className="muted">
                {mine.partner ? t('promotion.partnerYes', { code: mine.auth_code ?? '' }) : t('promotion.partnerNo')}
                {mine.inviter && ` · ${t('promotion.invitedBy', { account: mine.inviter.account })}`}
                {mine.sub_account && ` · ${t('promotion.subAccount')}`}
              </p>
            )}
          </section>

          <section className="card promotion__poster" aria-label={t('promotion.poster')}>
            <h2>{t('promotion.poster')}</h2>
            {poster === undefined ? (
              <Skeleton rows={1} height={200} />
            ) : poster === null ? (
              <LoadFailed onRetry={loadPoster} />
            ) : (
              <>
                <img src={poster} alt={t('promotion.posterAlt', { code: info.invite_code })} data-testid="poster" />
                <a className="button button--primary" href={poster} download={`kestrel-invite-${info.invite_code}.png`}>
                  {t('promotion.saveImage')}
                </a>
              </>
            )}
          </section>

          {mine?.can_bind && (
            <form className="card" onSubmit={bind} noValidate>
              <h2>{t('promotion.authCode')}</h2>
              <p className="muted">{t('promotion.authCodeHint')}</p>
              <Field label={t('promotion.authCode')} value={authCode} onChange={setAuthCode} error={bindError ?? undefined} maxLength={12} />
              <button type="submit" className="button button--primary" disabled={binding}>
                {t('promotion.join')}
              </button>
            </form>
          )}

          <section className="card" aria-label={t('promotion.ranking')}>
            <h2>{t('promotion.ranking')}</h2>
            {ranking === null ? (
              <Skeleton />
            ) : ranking === 'failed' ? (
              <LoadFailed onRetry={loadRanking} />
            ) : ranking.items.length === 0 ? (
              <Empty />
            ) : (
              <ol className="promotion__ranking" data-testid="ranking">
                {ranking.items.map((r) => (
                  <li key={r.rank}>
                    <span className="promotion__rank">{r.rank}</span>
                    <span>{r.account}</span>
                    <span className="promotion__amount">
                      {r.rebate} {ranking.currency}
                    </span>
                  </li>
                ))}
              </ol>
            )}
          </section>

          <section className="card">
            <Segmented
              label={t('promotion.lists')}
              value={tab}
              onChange={setTab}
              options={[
                { value: 'records', label: t('promotion.records') },
                { value: 'invitees', label: t('promotion.invitees') },
              ]}
            />
            {tab === 'records' ? (
              records.failed ? (
                <LoadFailed onRetry={records.reload} />
              ) : records.items === null ? (
                <Skeleton />
              ) : records.items.length === 0 ? (
                <Empty />
              ) : (
                <ul className="promotion__list">
                  {records.items.map((r) => (
                    <li key={r.id}>
                      <div>
                        <strong>
                          +{r.amount} {r.currency}
                        </strong>
                        <span className={`status ${r.status === 'paid' ? 'status--passed' : ''}`}>{t(`promotion.status.${r.status}`)}</span>
                      </div>
                      <div className="muted">
                        {t(`promotion.kind.${r.kind}`)} · {r.invitee} · {t('promotion.feeOf', { fee: r.fee, coin: r.currency, ratio: pctOf(r.ratio) })}
                      </div>
                      <div className="muted">{formatTime(r.created_at)}</div>
                    </li>
                  ))}
                </ul>
              )
            ) : invitees.failed ? (
              <LoadFailed onRetry={invitees.reload} />
            ) : invitees.items === null ? (
              <Skeleton />
            ) : invitees.items.length === 0 ? (
              <Empty />
            ) : (
              <ul className="promotion__list">
                {invitees.items.map((u, i) => (
                  <li key={`${u.account}-${i}`}>
                    <div>
                      <strong>{u.account}</strong>
                      <span className="muted">{u.verified ? t('promotion.verified') : t('promotion.unverified')}</span>
                    </div>
                    <div className="muted">
                      {formatTime(u.registered_at, 'date')} · {t('promotion.earned', { amount: u.rebate, coin: info.rebate_currency })}
                    </div>
                  </li>
                ))}
              </ul>
            )}
            {shown.more && (
              <button type="button" className="button button--block" onClick={shown.loadMore} disabled={shown.busy}>
                {t('common.loadMore')}
              </button>
            )}
          </section>
        </>
      )}
    </Page>
  );
}

/** "0.2" → "20%" (string arithmetic: ratios have at most 8 decimals). */
function pctOf(ratio: string): string {
  const [i, f = ''] = ratio.split('.');
  const digits = (f + '00').slice(0, 2);
  const rest = f.slice(2).replace(/0+$/, '');
  const whole = String(Number(i) * 100 + Number(digits));
  return `${whole}${rest ? `.${rest}` : ''}%`;
}
