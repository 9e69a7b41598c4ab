import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A flash exchange's request (`FlashRequested`, its quote, written before the sequencer command)
 * is found by age: the sweep that records a conversion applied but left unrecorded reads the last
 * day's requests through this partial index, never the whole event store.
 */
export class FlashRequests1795690000000 implements MigrationInterface {
  name = 'FlashRequests1795690000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_events_flash_requested" ON "events" ("created_at") WHERE type = 'FlashRequested'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_events_flash_requested"`);
  }
}
