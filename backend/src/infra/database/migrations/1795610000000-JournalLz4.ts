import { MigrationInterface, QueryRunner } from 'typeorm';

/** Whether this server compresses with lz4 (PostgreSQL 14+ built with it). */
export async function hasLz4(queryRunner: QueryRunner): Promise<boolean> {
  const rows = await queryRunner.query(`SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)`);
  return rows.length > 0;
}

/**
 * The journal's commands are compressed with lz4 instead of pglz, where the server has it (every
 * PostgreSQL 14+ built with lz4: Debian's and the official image). A journal row (one group commit,
 * ~100 commands, 18–29 kB of jsonb under load) is compressed inside the INSERT the answers wait for,
 * and read back by the projector: pglz was ~1.7 % of PostgreSQL's CPU in the closed loop and lz4
 * does both several times faster (docs/performance.md, "Eighth sitting"). Rows already written keep
 * pglz; both read back the same. The ALTER takes the table's exclusive lock for a moment: it waits
 * at most 2 s for it (a long reader such as pg_dump would otherwise hold every journal write behind
 * it), and if that passes the migration fails and the process stops, to be started again.
 */
export class JournalLz41795610000000 implements MigrationInterface {
  name = 'JournalLz41795610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    if (!(await hasLz4(queryRunner))) return;
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`ALTER TABLE "sequencer_journal" ALTER COLUMN "commands" SET COMPRESSION lz4`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    if (!(await hasLz4(queryRunner))) return;
    await queryRunner.query(`ALTER TABLE "sequencer_journal" ALTER COLUMN "commands" SET COMPRESSION DEFAULT`);
  }
}
