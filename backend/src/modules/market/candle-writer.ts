import { EntityManager } from 'typeorm';
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
  for (const t of trades) {
    const [price, qty, quote] = [units(t.price), units(t.quantity), units(t.quoteQuantity)];
    for (const period of PERIODS) {
      const openTime = bucketStart(period, t.ts);
      const key = `${period}:${openTime}`;
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
  const values: unknown[] = [];
  const rows = [...candles.values()].map((c, i) => {
    values.push(
      marketId,
      c.period,
      c.openTime,
      c.open,
      unitsString(c.high),
      unitsString(c.low),
      c.close,
      unitsString(c.volume),
      unitsString(c.quoteVolume),
      c.trades,
    );
    const b = i * 10;
    return `($${b + 1}, $${b + 2}, to_timestamp($${b + 3} / 1000.0), $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9}, $${b + 10})`;
  });
  await m.query(
    `INSERT INTO klines (market_id, period, open_time, open, high, low, close, volume, quote_volume, trades) VALUES ${rows.join(', ')}
     ON CONFLICT (market_id, period, open_time) DO UPDATE SET
       high = GREATEST(klines.high, EXCLUDED.high), low = LEAST(klines.low, EXCLUDED.low), close = EXCLUDED.close,
       volume = klines.volume + EXCLUDED.volume, quote_volume = klines.quote_volume + EXCLUDED.quote_volume, trades = klines.trades + EXCLUDED.trades`,
    values,
  );
}
