import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A candle's volumes (`klines.volume`, `quote_volume`) become unbounded `numeric` (were
 * numeric(36,18)): each trade's quantity is below 10^18 whole units, but a candle is a sum of them
 * (a month's, or two large trades in a minute of a coin with a lot size of 1 or more): one past
 * 10^18 could not be written, and the projector failed on it at every replay of the journal, as
 * balances did before BalancesUnbounded. Removing the typmod rewrites nothing.
 */
export class KlineVolumesUnbounded1795890000000 implements MigrationInterface {
  name = 'KlineVolumesUnbounded1795890000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`ALTER TABLE "klines" ALTER COLUMN "volume" TYPE numeric, ALTER COLUMN "quote_volume" TYPE numeric`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "klines" ALTER COLUMN "volume" TYPE numeric(36,18), ALTER COLUMN "quote_volume" TYPE numeric(36,18)`);
  }
}
