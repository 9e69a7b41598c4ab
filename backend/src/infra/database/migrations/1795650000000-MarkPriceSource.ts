import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `mark_prices.source`: `sample` for the once-a-second sampler's ticks, `deal` for a tick recorded
 * when a user deals at the price now (an option purchase, a contract's market open or close). Only
 * sampled ticks deliver options: a user could otherwise record a tick at a moment of their choosing
 * just after an option's delivery time, when its price suited them. Existing rows are samples (a
 * constant default: no rewrite).
 */
export class MarkPriceSource1795650000000 implements MigrationInterface {
  name = 'MarkPriceSource1795650000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "mark_prices" ADD "source" varchar(8) NOT NULL DEFAULT 'sample'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "mark_prices" DROP COLUMN "source"`);
  }
}
