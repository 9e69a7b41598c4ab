import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `sequencer_commands`: every applied posting command by its command id, written by the projector
 * with its batch. A retry past the sequencer's idempotency window (24 h or 1,000,000 commands) is
 * answered from it instead of moving money again. Filled from now on: a command applied before
 * this migration is deduplicated by the window alone, as before. Guarded like the trade accounts:
 * only a transaction that says it is the projector's (`kestrel.writer`) may write it.
 */
export class SequencerCommands1795680000000 implements MigrationInterface {
  name = 'SequencerCommands1795680000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sequencer_commands" ("command_id" text NOT NULL, "seq" bigint NOT NULL, "applied_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "pk_sequencer_commands" PRIMARY KEY ("command_id"))`,
    );
    // Only the projector writes it (as the trade accounts' guard): a row written by anyone else would
    // make a command that never ran answer "done", and a row removed would let one run twice.
    await queryRunner.query(`CREATE FUNCTION kestrel_sequencer_commands() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF COALESCE(current_setting('kestrel.writer', true), '') <> 'projector' THEN
          RAISE EXCEPTION 'sequencer_commands is written only by the sequencer''s projector' USING ERRCODE = 'P0001';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER tr_sequencer_commands_writer BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "sequencer_commands" FOR EACH STATEMENT EXECUTE FUNCTION kestrel_sequencer_commands()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "sequencer_commands"`);
    await queryRunner.query(`DROP FUNCTION kestrel_sequencer_commands()`);
  }
}
