import { EntityManager } from 'typeorm';
import { arrayLiteral, preparedQuery } from '../../infra/database/sql';
import { units, unitsString } from '../../infra/money';
import { TradeTick } from '../engine/engine-bus';
import { bucketStart, Period, PERIODS } from './periods';

interface Candle {
  period: Period;
  openTime: number;
  open: string;
  close: string;
  /** Fixed-point units (see `units`). */
  high: bigint;
  low: bigint;
  volume: bigint;
  quoteVolume: bigint;
  trades: number;
}

/**
 * Folds settled trades into every period's candle, inside the settlement transaction: candles
 * come only from trades, and exactly once per trade (the trade row guards the whole transaction).
 */
export async function writeCandles(m: EntityManager, marketId: number, trades: readonly TradeTick[]): Promise<void> {
  if (!trades.length) return;
  const candles = new Map<string, Candle>();
  // A batch's trades share its time: each period's bucket (and its key) is worked out once per time.
  let bucketsTs = Number.NaN;
  let buckets: Array<{ period: Period; openTime: number; key: string }> = [];
  for (const t of trades) {
    const [price, qty, quote] = [units(t.price), units(t.quantity), units(t.quoteQuantity)];
    if (t.ts !== bucketsTs) {
      bucketsTs = t.ts;
      buckets = PERIODS.map((period) => {
        const openTime = bucketStart(period, t.ts);
        return { period, openTime, key: `${period}:${openTime}` };
      });
    }
    for (const { period, openTime, key } of buckets) {
      const c = candles.get(key);
      if (!c) {
        candles.set(key, {
          period,
          openTime,
          open: t.price,
          close: t.price,
          high: price,
          low: price,
          volume: qty,
          quoteVolume: quote,
          trades: 1,
        });
        continue;
      }
      if (price > c.high) c.high = price;
      if (price < c.low) c.low = price;
      c.close = t.price;
      c.volume += qty;
      c.quoteVolume += quote;
      c.trades += 1;
    }
  }
  const rows = [...candles.values()];
  const column = (f: (c: Candle) => string | number) => arrayLiteral(rows.map(f));
  // One text whatever the number of candles (arrays, as the projector's other statements), so one named statement.
  await preparedQuery(
    m,
    'kestrel-klines',
    `INSERT INTO klines (market_id, period, open_time, open, high, low, close, volume, quote_volume, trades)
     SELECT $1, p, to_timestamp(t / 1000.0), o, h, l, c, v, qv, n
     FROM unnest($2::varchar[], $3::bigint[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::numeric[], $10::bigint[]) x(p, t, o, h, l, c, v, qv, n)
     ON CONFLICT (market_id, period, open_time) DO UPDATE SET
       high = GREATEST(klines.high, EXCLUDED.high), low = LEAST(klines.low, EXCLUDED.low), close = EXCLUDED.close,
       volume = klines.volume + EXCLUDED.volume, quote_volume = klines.quote_volume + EXCLUDED.quote_volume, trades = klines.trades + EXCLUDED.trades`,
    [
      marketId,
      column((c) => c.period),
      column((c) => c.openTime),
      column((c) => c.open),
      column((c) => unitsString(c.high)),
      column((c) => unitsString(c.low)),
      column((c) => c.close),
      column((c) => unitsString(c.volume)),
      column((c) => unitsString(c.quoteVolume)),
      column((c) => c.trades),
    ],
  );
}
