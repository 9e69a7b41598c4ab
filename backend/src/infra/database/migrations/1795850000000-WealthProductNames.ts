import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A wealth product's name per language (`names`, `{en, zh, …}`), shown in the reader's language
 * where it has one, else its `name`. Existing products start with none: the seeds get theirs at the
 * next start (WealthProductsService, unless an operator renamed them), an operator's through the
 * product API.
 */
export class WealthProductNames1795850000000 implements MigrationInterface {
  name = 'WealthProductNames1795850000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "wealth_products" ADD "names" jsonb NOT NULL DEFAULT '{}'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "wealth_products" DROP COLUMN "names"`);
  }
}
