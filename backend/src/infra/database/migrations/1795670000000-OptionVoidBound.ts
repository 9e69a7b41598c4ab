import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `option_orders.void_after_ms`: the lateness bound an option was delivered under (a delivery tick
 * more than this after `deliver_at` makes it void, its stake returned). Null for options delivered
 * before the bound existed: their audit recomputes up, down or flat only, as they were settled.
 */
export class OptionVoidBound1795670000000 implements MigrationInterface {
  name = 'OptionVoidBound1795670000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "option_orders" ADD "void_after_ms" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "option_orders" DROP COLUMN "void_after_ms"`);
  }
}
