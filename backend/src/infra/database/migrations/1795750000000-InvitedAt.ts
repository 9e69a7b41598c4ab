import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `users.invited_at`: when a user who registered without an inviter bound a partner's authorization
 * code. Rebates accrue only on fees paid since (before, the first accrual after a bind also paid the
 * partner on the fees of the ledger window it re-reads). Null for a user invited at registration,
 * whose fees all come after the link. Filled for earlier binds from their `PartnerSubAccountBound`
 * events. Adding a nullable column without a default rewrites nothing.
 */
export class InvitedAt1795750000000 implements MigrationInterface {
  name = 'InvitedAt1795750000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "invited_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `UPDATE "users" u SET "invited_at" = e."created_at" FROM "events" e WHERE e."type" = 'PartnerSubAccountBound' AND e."stream_id" = 'user:' || u."id"`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "invited_at"`);
  }
}
