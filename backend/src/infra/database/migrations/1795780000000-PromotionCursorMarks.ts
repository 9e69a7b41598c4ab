import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `promotion_cursor_marks`: where the rebate accrual's cursor over `ledger_entries` stood, and when.
 * Each run re-reads from where it stood OVERLAP_SECONDS ago (a time, not a count of ids): an entry
 * whose transaction took its id early and committed late is found unless it committed more than
 * that long after. Before, the re-read was 80,000 ids, which the projector's id reservations pass
 * in under a second at the load-test rates.
 */
export class PromotionCursorMarks1795780000000 implements MigrationInterface {
  name = 'PromotionCursorMarks1795780000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "promotion_cursor_marks" ("id" BIGSERIAL NOT NULL, "source" integer NOT NULL, "entry_id" bigint NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_promotion_cursor_marks" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_promotion_cursor_marks_source_at" ON "promotion_cursor_marks" ("source", "at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "promotion_cursor_marks"`);
  }
}
