import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sequencer's snapshots as text instead of jsonb: a snapshot is megabytes of JSON once the
 * books are deep, and storing it as jsonb made PostgreSQL parse all of it on every save (80–220 ms
 * of its CPU for 1–4 MB, every ENGINE_SNAPSHOT_EVERY commands, while the projector waited;
 * docs/performance.md, "Twentieth sitting"). Nothing reads inside a snapshot in SQL. Text is stored
 * as it is, compressed with lz4 where the server has it; the rows already written become their
 * jsonb text, which restores the same state.
 */
export class SnapshotText1795710000000 implements MigrationInterface {
  name = 'SnapshotText1795710000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sequencer_snapshots" ALTER COLUMN "state" TYPE text USING "state"::text`);
    const [lz4] = await queryRunner.query(`SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)`);
    if (lz4) await queryRunner.query(`ALTER TABLE "sequencer_snapshots" ALTER COLUMN "state" SET COMPRESSION lz4`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sequencer_snapshots" ALTER COLUMN "state" SET COMPRESSION DEFAULT`);
    await queryRunner.query(`ALTER TABLE "sequencer_snapshots" ALTER COLUMN "state" TYPE jsonb USING "state"::jsonb`);
  }
}
