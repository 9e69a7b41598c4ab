import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { newcoinApi } from '../../../../api/newcoin';
import { walletApi } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { useMoneySubmit } from '../../../../components/client-id';
import { cmp, isAmount, isPositive, mul, stepDecimals, typedDecimal } from '../../../../components/decimal';
import { Empty, LoadFailed, Skeleton } from '../../../../components/feedback';
import { Field } from '../../../../components/form';
import { truncate } from '../../../../components/format';
import { Page } from '../../../../components/page';
import { useSessionStore } from '../../../../stores/session.store';
import { toast } from '../../../../stores/toast.store';
import { ProjectCountdown, ProjectTerms, projectIdOf, StateBadge, useProject } from '../../ieo/ieo-parts';

/**
 * `template/ieoBuy/ieoBuy`: subscribe to a project in progress. The payment (quantity × price) is
 * checked here against the trade account's available balance and the per-user range, then frozen
 * by the server; each attempt carries a client id, so a retry subscribes once.
 */
export function IeoBuyPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const [search] = useSearchParams();
  const id = projectIdOf(search);
  const { project, failed, reload, now, loadedAt } = useProject(id);
  const token = useSessionStore((s) => s.token);
  const navigate = useNavigate();
  const [quantity, setQuantity] = useState('');
  const [error, setError] = useState<string>();
  const [available, setAvailable] = useState<string | null>(null);
  const { busy, run } = useMoneySubmit('ieo-buy');
  useEffect(() => {
    if (!project || !token) return;
    walletApi.currencies().then(
      (list) => setAvailable(list.find((c) => c.currency_id === project.currency_id)?.available ?? '0'),
      () => setAvailable(null),
    );
  }, [project, token]);

  if (failed)
    return (
      <Page title={t(titleKey)}>
        <LoadFailed onRetry={reload} />
      </Page>
    );
  if (project === undefined)
    return (
      <Page title={t(titleKey)}>
        <Skeleton rows={5} />
      </Page>
    );
  if (project === null)
    return (
      <Page title={t(titleKey)}>
        <section className="card">
          <Empty text={t('ieo.notFound')} />
        </section>
      </Page>
    );
  const d = project.decimals;
  const payment = isAmount(quantity) ? mul(quantity, project.price, 8) : '0';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const q = quantity.trim();
    if (!q) return setError(t('ieo.quantityEmpty'));
    if (!isAmount(q) || !isPositive(q)) return setError(t('ieo.quantityInvalid'));
    if (stepDecimals(q) > d) return setError(t('ieo.decimals', { decimals: d }));
    if (cmp(q, project.min_qty) < 0 || cmp(q, project.max_qty) > 0) return setError(t('ieo.range', { min: project.min_qty, max: project.max_qty }));
    if (available !== null && cmp(mul(q, project.price, 18), available) > 0) return setError(t('ieo.insufficient'));
    try {
      const request = { project_id: project.id, quantity: q };
      const done = await run(request, (clientId) => newcoinApi.submit({ ...request, client_id: clientId }));
      if (!done) return;
      toast(t('ieo.submitted'));
      navigate(`${PATHS.ieoDetails}?id=${project.id}`, { replace: true });
    } catch {
      // The client showed the server's message.
    }
  };
  return (
    <Page title={t(titleKey)}>
      <section className="card" aria-labelledby="ieo-buy-title">
        <div className="ieo-card__head">
          <div className="ieo-card__name">
            <strong id="ieo-buy-title">{project.symbol}</strong>
            <span className="muted small">{project.name}</span>
          </div>
          <StateBadge state={project.state} />
        </div>
        <ProjectCountdown project={project} loadedAt={loadedAt} now={now} />
        <ProjectTerms project={project} />
      </section>
      {project.state !== 'active' ? (
        <section className="card">
          <p>{t(`ieo.closed.${project.state}`)}</p>
          <Link className="button button--block" to={`${PATHS.ieoDetails}?id=${project.id}`}>
            {t('ieo.details')}
          </Link>
        </section>
      ) : (
        <form className="form card" onSubmit={submit} noValidate>
          <Field
            label={t('ieo.quantity', { symbol: project.symbol })}
            inputMode="decimal"
            autoComplete="off"
            value={quantity}
            onChange={typedDecimal(setQuantity)}
            error={error}
            name="quantity"
            placeholder={t('ieo.rangeHint', { min: truncate(project.min_qty, d), max: truncate(project.max_qty, d) })}
          />
          <dl className="rows rows--compact">
            <div>
              <dt>{t('ieo.payment')}</dt>
              <dd className="num" data-testid="ieo-payment">
                {truncate(payment, 8)} {project.currency}
              </dd>
            </div>
            <div>
              <dt>{t('ieo.available')}</dt>
              <dd className="num" data-testid="ieo-available">
                {available === null ? '--' : truncate(available, 4)} {project.currency}
              </dd>
            </div>
          </dl>
          <p className="ieo-note">{t('ieo.payNote')}</p>
          <button type="submit" className="button button--primary button--block" disabled={busy} data-testid="ieo-submit">
            {t('ieo.subscribe')}
          </button>
        </form>
      )}
    </Page>
  );
}
