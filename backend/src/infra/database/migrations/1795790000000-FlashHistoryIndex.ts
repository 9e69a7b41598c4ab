import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `fpjy/list` reads a user's conversions (`FlashExchanged` events by `payload->>'user_id'`, newest
 * first) and counts them: without this index both read every event of every feature.
 */
export class FlashHistoryIndex1795790000000 implements MigrationInterface {
  name = 'FlashHistoryIndex1795790000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`CREATE INDEX "ix_events_flash_exchanged_user" ON "events" (((payload->>'user_id')::int), "seq") WHERE type = 'FlashExchanged'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_events_flash_exchanged_user"`);
  }
}
