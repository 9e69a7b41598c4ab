import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ieo_projects.requested`, `payments`, `refunded`, `proceeds`: sums over every subscription, so
 * unbounded `numeric` instead of numeric(36,18). Each subscription is below 10^18 (a quantity at
 * most the supply, a payment at most a balance), but their sum was not: a project whose total
 * reached 10^18 could not record its allocation, and the job retried it for ever with every
 * payment frozen. Removing the typmod needs no table rewrite.
 */
export class IeoTotalsUnbounded1795770000000 implements MigrationInterface {
  name = 'IeoTotalsUnbounded1795770000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(
      `ALTER TABLE "ieo_projects" ALTER COLUMN "requested" TYPE numeric, ALTER COLUMN "payments" TYPE numeric, ALTER COLUMN "refunded" TYPE numeric, ALTER COLUMN "proceeds" TYPE numeric`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "ieo_projects" ALTER COLUMN "requested" TYPE numeric(36,18), ALTER COLUMN "payments" TYPE numeric(36,18), ALTER COLUMN "refunded" TYPE numeric(36,18), ALTER COLUMN "proceeds" TYPE numeric(36,18)`,
    );
  }
}
