import type { TickerData } from '@kestrel/contracts';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { leverApi, type LeverDeal, type Position } from '../../../api/derivatives';
import { PATHS } from '../../../app/paths';
import { Change } from '../../../components/change';
import { isPositive } from '../../../components/decimal';
import { Empty, LoadFailed, Skeleton } from '../../../components/feedback';
import { fateUnknown } from '../../../components/client-id';
import { formatTime, truncate } from '../../../components/format';
import { Page } from '../../../components/page';
import { balanceKey, closingHere, useLive, useLiveStore } from '../../../live/live.store';
import { StaleBadge } from '../../../live/stale-badge';
import { useMarketStore } from '../../../stores/market.store';
import { toast } from '../../../stores/toast.store';
import { MarketSwitcher } from '../../trade/market-switcher';
import { MarketsPending } from '../../trade/markets-pending';
import { useMarkets } from '../../trade/use-markets';
import { LeverForm } from './lever-form';
import { FeeAndType, PnL, Side, Which } from './position-parts';
import { TpSlSheet } from './tpsl-sheet';

/** The contract account's USDT (its `balance` pushes keep the form's "available" current). */
const USDT_ID = 3;

/**
 * The contract screen (Trade tab `lever/index` and Contract tab `lever/index2`): market switcher,
 * mark price, the open form, open positions (close after a confirmation) and pending limit orders
 * (cancel), TP/SL edited in a sheet. `lever/deal` is read once per market (and after a resync): the
 * rules and a first snapshot. After that nothing is polled: the private `position` push brings every
 * open position's P/L, risk rate and liquidation price on each mark tick that changes them (and a
 * closed or liquidated one leaves with a toast), `balance` the contract account, `tickers` the price.
 */
export function LeverPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  const { markets, market, choose, state: marketsState, retry: retryMarkets } = useMarkets();
  const { status, offline, resync } = useLive();
  const follow = useMarketStore((s) => s.follow);
  const ticker = useMarketStore((s) => s.tickers.find((m) => m.symbol === market?.symbol)) as TickerData | undefined;
  useEffect(() => follow(), [follow]);
  const [deal, setDeal] = useState<LeverDeal | null>(null);
  // The server's refusal of this market's rules (e.g. a market without contracts): shown instead of a
  // skeleton that never ends; `failed` when no answer came (or the sequencer was busy): a retry is offered.
  const [refused, setRefused] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const symbol = market?.symbol;
  const shown = useRef(symbol);
  shown.current = symbol;
  const load = useCallback(() => {
    if (!symbol) return Promise.resolve();
    return leverApi.deal(symbol).then(
      // Only the market shown now: a late answer for the one shown before is dropped.
      (d) => shown.current === d.symbol && setDeal(d),
      (err: { message?: string; code?: number }) => {
        if (shown.current !== symbol) return;
        if (fateUnknown(err)) setFailed(true);
        else setRefused(err.message || t('common.error'));
      },
    );
  }, [symbol, t]);
  // Another market starts from a skeleton; a resync (the socket came back without its missed
  // messages) reloads in place, keeping the form and what the user has typed in it.
  useEffect(() => {
    setDeal(null);
    setRefused(null);
    setFailed(false);
  }, [symbol]);
  useEffect(() => void load(), [load, resync]);
  const pushed = useLiveStore((s) => s.positions);
  const liveBalance = useLiveStore((s) => s.balances[balanceKey('lever', USDT_ID)]);
  // The push (every market) once it has come, else the deal's snapshot of this market.
  const positions = useMemo(() => (pushed ? pushed.filter((p) => p.symbol === symbol) : (deal?.positions ?? [])) as Position[], [pushed, symbol, deal]);
  // Not one whose close is kept: it is valued at the price it settles at, not the market's.
  const held = positions.find((p) => p.status === 'holding' && !p.closing && p.current_price);
  const mark = held?.current_price ?? ticker?.last ?? deal?.mark_price ?? null;
  const live = useMemo(
    () => (deal ? { ...deal, mark_price: mark, available: liveBalance?.available ?? deal.available, positions } : null),
    [deal, mark, liveBalance, positions],
  );
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
        <MarketsPending state={marketsState} retry={retryMarkets} />
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
          {refused !== null && deal === null ? (
            <Empty text={refused} />
          ) : failed && deal === null ? (
            <LoadFailed
              onRetry={() => {
                setFailed(false);
                void load();
              }}
            />
          ) : deal === null ? (
            <Skeleton rows={5} />
          ) : (
            <>
              <LeverForm market={market} deal={live!} offline={offline} onPlaced={() => undefined} />
              <Positions deal={live!} mark={mark} pd={pd} offline={offline} />
            </>
          )}
        </>
      )}
    </Page>
  );
}

function Positions({ deal, mark, pd, offline }: { deal: LeverDeal; mark: string | null; pd: number; offline: boolean }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState<string | null>(null);
  const [editing, setEditing] = useState<Position | null>(null);
  const closeSheet = useCallback(() => setEditing(null), []);
  const holding = deal.positions.filter((p) => p.status === 'holding');
  const pending = deal.positions.filter((p) => p.status === 'pending');
  const act = async (p: Position, kind: 'close' | 'cancel') => {
    const question =
      kind === 'close' ? t('lever.confirmClose', { count: p.lots, symbol: p.symbol }) : t('lever.confirmCancel', { count: p.lots, symbol: p.symbol });
    if (!window.confirm(question)) return;
    setBusy(p.id);
    const undo = kind === 'close' ? closingHere(p.id) : undefined;
    try {
      await (kind === 'close' ? leverApi.close(p.id) : leverApi.cancel(p.id));
      // The `position` push removes it from the list.
      toast(t(kind === 'close' ? 'lever.closed' : 'lever.cancelled'));
    } catch {
      // Shown by the client. A close kept meanwhile (2417) toasts when it settles.
      undo?.();
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      {editing && <TpSlSheet position={editing} mark={mark} pd={pd} onClose={closeSheet} />}
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
                {p.closing && (
                  <p className="muted small" data-testid="closing">
                    {t(p.pnl !== null && isPositive(p.pnl) ? 'lever.closingKept' : 'lever.closingPending', {
                      price: p.closing.price === null ? '--' : truncate(p.closing.price, pd),
                    })}
                  </p>
                )}
                <dl className="order__grid">
                  <div>
                    <dt>{t('lever.openPrice')}</dt>
                    <dd className="num">{truncate(p.open_price, pd)}</dd>
                  </div>
                  <div>
                    <dt>{t('lever.margin')}</dt>
                    <dd className="num">{truncate(p.margin, 4)} USDT</dd>
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
                  <div>
                    <dt>{t('lever.markPrice')}</dt>
                    <dd className="num" data-testid="position-mark">
                      {truncate(p.current_price, pd)}
                    </dd>
                  </div>
                  <FeeAndType fee={p.fee} type={p.type} testId="position-fee" />
                </dl>
                {!p.closing && (
                  <button type="button" className="button button--block" onClick={() => setEditing(p)} disabled={offline} data-testid="edit-tpsl">
                    {t('positionsLive.editTpsl')}
                    <Which side={p.side} lots={p.lots} multiple={p.multiple} />
                  </button>
                )}
                <button
                  type="button"
                  className="button button--block position__close"
                  onClick={() => act(p, 'close')}
                  disabled={busy === p.id || offline}
                  data-testid="close-position"
                >
                  {t('lever.close')}
                  <Which side={p.side} lots={p.lots} multiple={p.multiple} />
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
                  <span className="muted small">{formatTime(p.created_at)}</span>
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
                <button type="button" className="button button--block" onClick={() => setEditing(p)} disabled={offline}>
                  {t('positionsLive.editTpsl')}
                  <Which side={p.side} lots={p.lots} multiple={p.multiple} />
                </button>
                <button type="button" className="button button--block position__close" onClick={() => act(p, 'cancel')} disabled={busy === p.id || offline}>
                  {t('common.cancel')}
                  <Which side={p.side} lots={p.lots} multiple={p.multiple} />
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
