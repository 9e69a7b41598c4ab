import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's feedback and chat messages carry the app's `client_id` (DESIGN §1 principle 4): a
 * retried request (its answer lost) finds the row the first one wrote instead of writing a
 * second. Unique per user: a feedback per `user_id`, a chat message per `sender_id` among the users'
 * messages (an operator's replies carry none).
 * Existing rows have none; the new indexes cover only rows with one, so they build at once.
 */
export class HelpClientIds1795840000000 implements MigrationInterface {
  name = 'HelpClientIds1795840000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "help_feedback" ADD "client_id" character varying(64)`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_help_feedback_client" ON "help_feedback" ("user_id", "client_id") WHERE client_id IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "chat_messages" ADD "client_id" character varying(64)`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_chat_messages_client" ON "chat_messages" ("sender_id", "client_id") WHERE sender = 'user' AND client_id IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_chat_messages_client"`);
    await queryRunner.query(`ALTER TABLE "chat_messages" DROP COLUMN "client_id"`);
    await queryRunner.query(`DROP INDEX "public"."uq_help_feedback_client"`);
    await queryRunner.query(`ALTER TABLE "help_feedback" DROP COLUMN "client_id"`);
  }
}
