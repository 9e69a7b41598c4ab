import { money, Money } from '../../infra/money';
import type { LeverSide } from './lever-position.entity';

/**
 * Contract arithmetic (docs/architecture.md, "Contracts"): a position of `lots` lots of `lotValue`
 * USDT notional at the open price. Every value is truncated (ROUND_DOWN) to 8 decimals.
 */
export interface PositionTerms {
  side: LeverSide;
  lots: number;
  lotValue: string;
  multiple: number;
  openPrice: string;
  maintenanceRate: string;
}

const d8 = (v: Money) => v.toDecimalPlaces(8, 1);

export const notional = (lots: number, lotValue: string) => money(lotValue).times(lots);
export const marginOf = (lots: number, lotValue: string, multiple: number) => d8(notional(lots, lotValue).div(multiple));
export const feeOf = (lots: number, lotValue: string, feeRate: string) => d8(notional(lots, lotValue).times(feeRate));

/**
 * Unrealised P/L at `price`: notional × (price / open − 1), sign by side, computed as
 * notional × (price − open) / open: dividing last keeps a P/L that is a whole number of units
 * exact (dividing first rounded the ratio to 64 digits, and 3 lots from 60,000 to 60,200 made
 * 0.99999999 instead of 1).
 */
export function pnlAt(p: PositionTerms, price: string): Money {
  const move = notional(p.lots, p.lotValue).times(money(price).minus(p.openPrice)).div(p.openPrice);
  // Truncated toward zero (DESIGN §1.3), for gains and losses alike.
  return d8(p.side === 'long' ? move : move.negated());
}

/** The P/L settled when the position closes at `price`: a loss never exceeds the margin (a gap beyond it is the house's). */
export function settledPnl(p: PositionTerms, price: string, margin: Money): Money {
  return Money.max(pnlAt(p, price), margin.negated());
}

/** Equity = margin + P/L; the risk rate shown is equity / margin. */
export function equityAt(p: PositionTerms, price: string): Money {
  return marginOf(p.lots, p.lotValue, p.multiple).plus(pnlAt(p, price));
}

export const maintenanceOf = (p: PositionTerms) => d8(notional(p.lots, p.lotValue).times(p.maintenanceRate));

/** Liquidated when equity ≤ maintenance margin. */
export function isLiquidated(p: PositionTerms, price: string): boolean {
  return equityAt(p, price).lte(maintenanceOf(p));
}

/** The price at which equity equals the maintenance margin (shown to the user; the check above decides). */
export function liquidationPrice(p: PositionTerms): Money {
  const m = marginOf(p.lots, p.lotValue, p.multiple);
  const room = m.minus(maintenanceOf(p)).div(notional(p.lots, p.lotValue));
  const factor = p.side === 'long' ? money(1).minus(room) : money(1).plus(room);
  return d8(money(p.openPrice).times(factor));
}

export function tpHit(side: LeverSide, tp: string, price: string): boolean {
  return side === 'long' ? money(price).gte(tp) : money(price).lte(tp);
}

export function slHit(side: LeverSide, sl: string, price: string): boolean {
  return side === 'long' ? money(price).lte(sl) : money(price).gte(sl);
}

/**
 * Whether a tick may trigger the take-profit and stop-loss: only ticks recorded after they were
 * last set (`tpslTickId`, the market's newest tick then; null when set with the order).
 */
export function tpSlLive(p: { tpslTickId?: string | null }, tickId: string): boolean {
  return !p.tpslTickId || BigInt(tickId) > BigInt(p.tpslTickId);
}
