import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `sequencer_commands`: every applied posting command by its command id, written by the projector
 * with its batch. A retry past the sequencer's idempotency window (24 h or 1,000,000 commands) is
 * answered from it instead of moving money again. Filled from now on: a command applied before
 * this migration is deduplicated by the window alone, as before.
 */
export class SequencerCommands1795680000000 implements MigrationInterface {
  name = 'SequencerCommands1795680000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sequencer_commands" ("command_id" text NOT NULL, "seq" bigint NOT NULL, "applied_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "pk_sequencer_commands" PRIMARY KEY ("command_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "sequencer_commands"`);
  }
}
