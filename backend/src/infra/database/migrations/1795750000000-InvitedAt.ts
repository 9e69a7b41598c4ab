import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `users.invited_at`: when a user who registered without an inviter bound a partner's authorization
 * code. Rebates accrue only on fees paid since (before, the first accrual after a bind also paid the
 * partner on the fees of the ledger window it re-reads). Null for a user invited at registration,
 * whose fees all come after the link. Adding a nullable column without a default rewrites nothing,
 * and this migration's transaction ends there: the table's lock is held for the ALTER alone.
 * `InvitedAtBackfill` fills earlier binds from their events, under row locks only.
 */
export class InvitedAt1795750000000 implements MigrationInterface {
  name = 'InvitedAt1795750000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`ALTER TABLE "users" ADD "invited_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "invited_at"`);
  }
}
