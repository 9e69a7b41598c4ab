import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `option_orders.reserve`: what the house froze for an order at purchase. Purchases now freeze the
 * stake plus the possible win (the most delivery can pay), not the win alone: the stake had gone to
 * the treasury's available balance, where a contract profit could spend it before delivery, and a
 * short payout stopped every delivery of its chunk. Older pending orders keep null (their delivery
 * releases the win, as it was frozen).
 */
export class OptionReserve1795640000000 implements MigrationInterface {
  name = 'OptionReserve1795640000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "option_orders" ADD "reserve" numeric(36,18)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "option_orders" DROP COLUMN "reserve"`);
  }
}
