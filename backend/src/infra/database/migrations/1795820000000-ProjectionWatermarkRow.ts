import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The projector's watermark row, seeded as "nothing projected" (seq 0, no ledger id: what its
 * readers take a missing row for). Every projection locks it first (`FOR UPDATE`) and checks that
 * it is just before its batches; on a fresh database there was no row to lock, so two projectors
 * (an engine paused past its lease and the next holder, or a retry) could both write the first
 * batches: their postings twice.
 */
export class ProjectionWatermarkRow1795820000000 implements MigrationInterface {
  name = 'ProjectionWatermarkRow1795820000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`INSERT INTO "sequencer_projection" ("id", "seq") VALUES (1, 0) ON CONFLICT ("id") DO NOTHING`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // Only the seed, if nothing was projected since.
    await queryRunner.query(`DELETE FROM "sequencer_projection" WHERE "id" = 1 AND "seq" = 0 AND "ledger_id" IS NULL`);
  }
}
