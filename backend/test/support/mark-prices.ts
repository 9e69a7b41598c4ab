import type { TestApp } from './test-app';

/**
 * Records mark-price ticks for a market in strictly increasing time, the latest one at "now" (the
 * freshness checks read it as current), or at `at` (a future delivery tick); answers each tick's id.
 * Starts 3 s in the past.
 */
export function tickRecorder(t: () => TestApp, marketId: number): (price: string, at?: Date) => Promise<string> {
  let clock = Date.now() - 3000;
  return async (price: string, at?: Date) => {
    clock = Math.max(clock + 1, Date.now());
    const [row] = await t().ds.query('INSERT INTO mark_prices (market_id, price, ts) VALUES ($1, $2, $3) RETURNING id::text', [marketId, price, at ?? new Date(clock)]);
    return row.id as string;
  };
}
