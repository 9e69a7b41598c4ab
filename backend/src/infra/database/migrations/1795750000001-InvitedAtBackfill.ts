import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `users.invited_at` for the binds made before the column (InvitedAt): the time of each user's
 * `PartnerSubAccountBound` event. A separate migration, so it holds row locks on those users only,
 * never the table's lock the ALTER took.
 */
export class InvitedAtBackfill1795750000001 implements MigrationInterface {
  name = 'InvitedAtBackfill1795750000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "users" u SET "invited_at" = e."created_at" FROM "events" e
       WHERE e."type" = 'PartnerSubAccountBound' AND e."stream_id" = 'user:' || u."id" AND u."invited_at" IS NULL`,
    );
  }

  public async down(): Promise<void> {
    // The column goes with InvitedAt's down.
  }
}
