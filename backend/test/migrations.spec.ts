import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/infra/database/data-source';
import { migrate } from '../src/infra/database/migrate';
import { writeCandles } from '../src/modules/market/candle-writer';
import { bucketStart } from '../src/modules/market/periods';
import { createDatabase } from './support/test-app';

describe('migrations', () => {
  it('a fresh database migrated to the latest version matches the entities (no drift)', async () => {
    const db = await createDatabase();
    const ds = new DataSource(dataSourceOptions(db.url));
    try {
      await ds.initialize();
      await migrate(ds);
      await migrate(ds); // a second start finds nothing to do
      const pending = await ds.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });

  it('a candle counts past 2^31 trades (regression: klines.trades was integer, and the projector’s upsert failed for ever)', async () => {
    const db = await createDatabase();
    const ds = new DataSource(dataSourceOptions(db.url));
    try {
      await ds.initialize();
      await migrate(ds);
      const [{ data_type }] = await ds.query(`SELECT data_type FROM information_schema.columns WHERE table_name = 'klines' AND column_name = 'trades'`);
      expect(data_type).toBe('bigint');

      const ts = Date.UTC(2026, 10, 20, 12, 0, 0);
      await ds.query(
        `INSERT INTO klines (market_id, period, open_time, open, high, low, close, trades) VALUES (1, '1mon', to_timestamp($1 / 1000.0), '100', '100', '100', '100', 2147483647)`,
        [bucketStart('1mon', ts)],
      );
      const tick = { marketId: 1, tradeId: 1, price: '101', quantity: '1', quoteQuantity: '101', takerSide: 'buy' as const, ts };
      await ds.transaction((m) => writeCandles(m, 1, [tick, { ...tick, tradeId: 2 }]));
      const [month] = await ds.query(`SELECT trades::text, high::text FROM klines WHERE market_id = 1 AND period = '1mon'`);
      expect(month).toEqual({ trades: '2147483649', high: '101.000000000000000000' });

      // Volumes past 10^18 (two trades of 6×10^17 in one minute) are written (regression: numeric(36,18) overflowed, and the projection stopped for good).
      const big = { ...tick, tradeId: 3, price: '1', quantity: '600000000000000000', quoteQuantity: '600000000000000000' };
      await ds.transaction((m) => writeCandles(m, 1, [big, { ...big, tradeId: 4 }]));
      const [minute] = await ds.query(`SELECT trim_scale(volume)::text AS volume, trim_scale(quote_volume)::text AS quote FROM klines WHERE market_id = 1 AND period = '1min'`);
      expect(minute).toEqual({ volume: '1200000000000000002', quote: '1200000000000000202' });
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
