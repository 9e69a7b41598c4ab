import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An operator's chat reply may carry the admin tool's `client_id`, as a user's message does: a
 * retry whose answer was lost is answered with the reply it first sent. One reply per operator and
 * id, kept by a unique index (two sent at once: the index takes the second).
 */
export class OperatorChatClientIds1795910000000 implements MigrationInterface {
  name = 'OperatorChatClientIds1795910000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_chat_messages_operator_client" ON "chat_messages" ("sender_id", "client_id") WHERE sender = 'operator' AND client_id IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_chat_messages_operator_client"`);
  }
}
