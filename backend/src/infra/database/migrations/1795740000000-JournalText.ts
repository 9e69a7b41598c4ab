import { MigrationInterface, QueryRunner } from 'typeorm';
import { hasLz4 } from './1795610000000-JournalLz4';

/**
 * The journal's commands as text (`commands_text`, the JSON the sequencer's host wrote) instead of
 * jsonb. The journal's INSERT is the one write every answer waits for, and jsonb made PostgreSQL
 * parse each batch into its binary form there (and print it back as text for every replay and
 * projection read): ~100 µs of a 10-command batch's insert, ~400 µs of a 60-command one
 * (docs/performance.md, "Thirty-second sitting"). Nothing queries inside the commands in SQL. New
 * rows carry only the text; rows written before keep their jsonb (`commands`, now nullable) and
 * are read through `JOURNAL_COMMANDS` (journal-writer.ts), so no table rewrite holds the journal's
 * lock at upgrade. The ALTER waits at most 2 s for the table's lock, as JournalLz4's does.
 */
export class JournalText1795740000000 implements MigrationInterface {
  name = 'JournalText1795740000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`ALTER TABLE "sequencer_journal" ADD "commands_text" text, ALTER COLUMN "commands" DROP NOT NULL`);
    if (await hasLz4(queryRunner)) await queryRunner.query(`ALTER TABLE "sequencer_journal" ALTER COLUMN "commands_text" SET COMPRESSION lz4`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "sequencer_journal" SET "commands" = "commands_text"::jsonb WHERE "commands" IS NULL`);
    await queryRunner.query(`ALTER TABLE "sequencer_journal" DROP COLUMN "commands_text", ALTER COLUMN "commands" SET NOT NULL`);
  }
}
