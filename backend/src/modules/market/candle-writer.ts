import { EntityManager } from 'typeorm';
import { money, moneyString } from '../../infra/money';
import { TradeTick } from '../engine/engine-bus';
import { bucketStart, Period, PERIODS } from './periods';

interface Candle {
  period: Period;
  openTime: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  quoteVolume: string;
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
    for (const period of PERIODS) {
      const openTime = bucketStart(period, t.ts);
      const key = `${period}:${openTime}`;
      const c = candles.get(key);
      if (!c) {
        candles.set(key, {
          period,
          openTime,
          open: t.price,
          high: t.price,
          low: t.price,
          close: t.price,
          volume: t.quantity,
          quoteVolume: t.quoteQuantity,
          trades: 1,
        });
        continue;
      }
      if (money(t.price).greaterThan(c.high)) c.high = t.price;
      if (money(t.price).lessThan(c.low)) c.low = t.price;
      c.close = t.price;
      c.volume = moneyString(money(c.volume).plus(t.quantity));
      c.quoteVolume = moneyString(money(c.quoteVolume).plus(t.quoteQuantity));
      c.trades += 1;
    }
  }
  const values: unknown[] = [];
  const rows = [...candles.values()].map((c, i) => {
    values.push(marketId, c.period, c.openTime, c.open, c.high, c.low, c.close, c.volume, c.quoteVolume, c.trades);
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
