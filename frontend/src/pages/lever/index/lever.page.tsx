import type { TickerData } from '@kestrel/contracts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { leverApi, type LeverDeal, type Position } from '../../../api/derivatives';
import { PATHS } from '../../../app/paths';
import { Change } from '../../../components/change';
import { Empty, Skeleton } from '../../../components/feedback';
import { truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { useLive } from '../../../live/live.store';
import { StaleBadge } from '../../../live/stale-badge';
import { useMarketStore } from '../../../stores/market.store';
import { toast } from '../../../stores/toast.store';
import { MarketSwitcher } from '../../trade/market-switcher';
import { useMarkets } from '../../trade/use-markets';
import { LeverForm } from './lever-form';
import { PnL, Side } from './position-parts';

const POLL_MS = 2000;

/**
 * The contract screen (Trade tab `lever/index` and Contract tab `lever/index2`): market switcher,
 * mark price, the open form, open positions (close after a confirmation) and pending limit orders
 * (cancel). `lever/deal` is polled every 2 s: the mark price, the balance and every open position's
 * P/L and risk rate (positions are not pushed over the socket).
 */
export function LeverPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { markets, market, choose } = useMarkets();
  const { status, offline, resync } = useLive();
  const follow = useMarketStore((s) => s.follow);
  const ticker = useMarketStore((s) => s.tickers.find((m) => m.symbol === market?.symbol)) as TickerData | undefined;
  useEffect(() => follow(), [follow]);
  const [deal, setDeal] = useState<LeverDeal | null>(null);
  const symbol = market?.symbol;
  const load = useCallback(() => {
    if (!symbol) return Promise.resolve();
    return leverApi.deal(symbol).then(
      (d) => setDeal((prev) => (d.symbol === symbol ? d : prev)),
      () => undefined,
    );
  }, [symbol]);
  useEffect(() => {
    setDeal(null);
    void load();
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [load, resync]);

  const mark = deal?.mark_price ?? null;
  const pd = market?.price_decimals ?? 2;
  return (
    <Page
      title={t(titleKey)}
      back={false}
      right={
        <Link className="icon-button" to={PATHS.lever3} aria-label={t('lever.history')} data-testid="lever-history-link">
          <span aria-hidden="true">☰</span>
        </Link>
      }
    >
      <StaleBadge status={status} />
      {!market ? (
        <Skeleton rows={6} />
      ) : (
        <>
          <section className="card ticker-card" aria-label={t('lever.summary')}>
            <div className="ticker-card__top">
              <MarketSwitcher markets={markets} value={market.symbol} onChange={choose} />
              <div className="ticker-card__last">
                <span className="muted small">{t('lever.markPrice')}</span>
                <strong className="num" data-testid="mark-price">
                  {truncate(mark ?? ticker?.last, pd)}
                </strong>
                <Change pct={ticker?.change_pct} />
              </div>
            </div>
          </section>
          {deal === null ? (
            <Skeleton rows={5} />
          ) : (
            <>
              <LeverForm market={market} deal={deal} offline={offline} onPlaced={load} />
              <Positions deal={deal} pd={pd} offline={offline} reload={load} />
            </>
          )}
        </>
      )}
    </Page>
  );
}

function Positions({ deal, pd, offline, reload }: { deal: LeverDeal; pd: number; offline: boolean; reload: () => Promise<void> }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState<string | null>(null);
  const holding = deal.positions.filter((p) => p.status === 'holding');
  const pending = deal.positions.filter((p) => p.status === 'pending');
  const act = async (p: Position, kind: 'close' | 'cancel') => {
    const question = kind === 'close' ? t('lever.confirmClose', { lots: p.lots, symbol: p.symbol }) : t('lever.confirmCancel', { lots: p.lots, symbol: p.symbol });
    if (!window.confirm(question)) return;
    setBusy(p.id);
    try {
      await (kind === 'close' ? leverApi.close(p.id) : leverApi.cancel(p.id));
      toast(t(kind === 'close' ? 'lever.closed' : 'lever.cancelled'));
      await reload();
    } catch {
      // shown by the client
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      <section className="card" aria-labelledby="positions-title">
        <h2 id="positions-title" className="card__title">
          {t('lever.positions')}
        </h2>
        {holding.length === 0 ? (
          <Empty />
        ) : (
          <ul className="orders" data-testid="positions">
            {holding.map((p) => (
              <li key={p.id} className="order" data-testid="position">
                <div className="order__head">
                  <Side side={p.side} lots={p.lots} multiple={p.multiple} />
                  <PnL value={p.pnl} />
                </div>
                <dl className="order__grid">
                  <div>
                    <dt>{t('lever.openPrice')}</dt>
                    <dd className="num">{truncate(p.open_price, pd)}</dd>
                  </div>
                  <div>
                    <dt>{t('lever.margin')}</dt>
                    <dd className="num">{truncate(p.margin, 4)}</dd>
                  </div>
                  <div>
                    <dt>{t('lever.riskRate')}</dt>
                    <dd className="num" data-testid="risk-rate">
                      {p.risk_rate === null ? '--' : `${truncate(p.risk_rate, 2)}%`}
                    </dd>
                  </div>
                  <div>
                    <dt>{t('lever.liquidation')}</dt>
                    <dd className="num">{truncate(p.liquidation_price, pd)}</dd>
                  </div>
                  <div>
                    <dt>{t('lever.takeProfit')}</dt>
                    <dd className="num">{truncate(p.take_profit, pd)}</dd>
                  </div>
                  <div>
                    <dt>{t('lever.stopLoss')}</dt>
                    <dd className="num">{truncate(p.stop_loss, pd)}</dd>
                  </div>
                </dl>
                <button
                  type="button"
                  className="button button--block position__close"
                  onClick={() => act(p, 'close')}
                  disabled={busy === p.id || offline}
                  data-testid="close-position"
                >
                  {t('lever.close')}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="pending-title">
        <h2 id="pending-title" className="card__title">
          {t('lever.pending')}
        </h2>
        {pending.length === 0 ? (
          <Empty />
        ) : (
          <ul className="orders" data-testid="pending-positions">
            {pending.map((p) => (
              <li key={p.id} className="order">
                <div className="order__head">
                  <Side side={p.side} lots={p.lots} multiple={p.multiple} />
                  <span className="muted small">{new Date(p.created_at).toLocaleString()}</span>
                </div>
                <dl className="order__grid">
                  <div>
                    <dt>{t('lever.limitPrice')}</dt>
                    <dd className="num">{truncate(p.target_price, pd)}</dd>
                  </div>
                  <div>
                    <dt>{t('lever.takeProfit')}</dt>
                    <dd className="num">{truncate(p.take_profit, pd)}</dd>
                  </div>
                  <div>
                    <dt>{t('lever.stopLoss')}</dt>
                    <dd className="num">{truncate(p.stop_loss, pd)}</dd>
                  </div>
                </dl>
                <button type="button" className="button button--block position__close" onClick={() => act(p, 'cancel')} disabled={busy === p.id || offline}>
                  {t('common.cancel')}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
