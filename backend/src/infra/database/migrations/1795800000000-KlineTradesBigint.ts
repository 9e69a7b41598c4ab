import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `klines.trades`: `bigint` instead of `integer`. The projector adds each batch's trades to the
 * candle's count; a busy market's month (or week) candle past 2^31 - 1 trades made that upsert
 * fail, and the projector retried it for ever. The change rewrites the table (candles only: no
 * order or ledger path waits on it), under a short lock timeout as the other type changes.
 */
export class KlineTradesBigint1795800000000 implements MigrationInterface {
  name = 'KlineTradesBigint1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`ALTER TABLE "klines" ALTER COLUMN "trades" TYPE bigint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "klines" ALTER COLUMN "trades" TYPE integer`);
  }
}
