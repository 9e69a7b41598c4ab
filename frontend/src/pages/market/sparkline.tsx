import type { CandleData } from '@kestrel/contracts';
import { useEffect, useState } from 'react';
import { marketsApi } from '../../api/markets';

const cache = new Map<string, { at: number; closes: number[] }>();
const FRESH_MS = 5 * 60_000;

/** The hourly closes of the last 24 h (cached a few minutes: the line's shape moves slowly). */
function useCloses(symbol: string): number[] {
  const [closes, setCloses] = useState<number[]>(() => cache.get(symbol)?.closes ?? []);
  useEffect(() => {
    const hit = cache.get(symbol);
    if (hit && Date.now() - hit.at < FRESH_MS) {
      setCloses(hit.closes);
      return;
    }
    let live = true;
    marketsApi.spark(symbol).then(
      (candles: CandleData[]) => {
        const c = candles.map((k) => Number(k.close)).filter((n) => Number.isFinite(n));
        cache.set(symbol, { at: Date.now(), closes: c });
        if (live) setCloses(c);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [symbol]);
  return closes;
}

const W = 56;
const H = 24;

const finite = (v: string | null | undefined) => (v !== null && v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/**
 * A small 24 h line from the 24 h open through the hourly closes to the live price (the last hour's
 * close is replaced by it). Decorative: the row states the change in words.
 */
export function Sparkline({ symbol, open, last, dir }: { symbol: string; open: string | null; last: string | null; dir: 'up' | 'down' | 'flat' }) {
  const closes = useCloses(symbol);
  const first = finite(open);
  const now = finite(last);
  const points = [...(first !== null ? [first] : []), ...(now !== null ? closes.slice(0, -1) : closes), ...(now !== null ? [now] : [])];
  if (points.length < 2) return <svg className="sparkline" width={W} height={H} aria-hidden="true" />;
  const min = Math.min(...points);
  const max = Math.max(...points);
  const span = max - min || 1;
  const d = points.map((p, i) => `${((i / (points.length - 1)) * W).toFixed(1)},${(H - 2 - ((p - min) / span) * (H - 4)).toFixed(1)}`).join(' ');
  return (
    <svg className={`sparkline sparkline--${dir}`} width={W} height={H} viewBox={`0 0 ${W} ${H}`} aria-hidden="true" data-testid="sparkline">
      <polyline points={d} fill="none" strokeWidth="1.5" />
    </svg>
  );
}
