import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `fpjy/list` reads a user's conversions (`FlashExchanged` events by `payload->>'user_id'`, newest
 * first) and counts them: without this index both read every event of every feature. Built
 * CONCURRENTLY, outside a transaction: a plain build would hold back every event append (ledger
 * postings, registrations, operator decisions) for as long as it reads the whole table.
 */
export class FlashHistoryIndex1795790000000 implements MigrationInterface {
  name = 'FlashHistoryIndex1795790000000';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    // A build interrupted before (CONCURRENTLY leaves an invalid index behind) is dropped and built again.
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "ix_events_flash_exchanged_user"`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY "ix_events_flash_exchanged_user" ON "events" (((payload->>'user_id')::int), "seq") WHERE type = 'FlashExchanged'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "ix_events_flash_exchanged_user"`);
  }
}
