import type { DepthData } from '@kestrel/contracts';
import { add, cmp, isAmount, isPositive, percentOf, stepDecimals, sub, toStep } from '../../../components/decimal';

/**
 * How far from the best opposite price a market order placed from the app may fill: 5 %. The
 * API's market order without a worst price sweeps whatever the book holds, so one tap on a thin
 * book could buy far above the last price; the app always sends a worst price (docs/api.md
 * "coin/trade", docs/architecture.md "Spot trading: market orders from the app").
 */
export const MARKET_BAND_PERCENT = 5;

export interface MarketProtection {
  /** The best opposite price (buy: best ask; sell: best bid), or the last trade's when that side is empty. */
  reference: string;
  /** The worst price sent with the order: on the tick grid, never past the band. */
  worst: string;
}

/**
 * The worst price a market order is sent with: the reference price moved by the band against the
 * taker (a buy at most 5 % above it, a sell at least 5 % below), kept on the tick grid inside the
 * band (a buy's bound rounds down, a sell's up) and at least one tick. Null when there is no price
 * to protect the order with (no quote on that side and no trade yet).
 */
export function marketProtection(side: 'buy' | 'sell', depth: DepthData | null, last: string | null, tickSize: string): MarketProtection | null {
  const best = (side === 'buy' ? depth?.asks : depth?.bids)?.[0]?.[0];
  const reference = [best, last].find((p): p is string => !!p && isAmount(p) && isPositive(p));
  if (!reference) return null;
  const band = percentOf(reference, MARKET_BAND_PERCENT, 18);
  let worst: string;
  if (side === 'buy') worst = toStep(add(reference, band, 18), tickSize);
  else {
    const bound = sub(reference, band, 18);
    const down = toStep(bound, tickSize);
    worst = cmp(down, bound) === 0 ? down : add(down, tickSize, stepDecimals(tickSize));
  }
  return { reference, worst: cmp(worst, tickSize) < 0 ? toStep(tickSize, tickSize) : worst };
}
