import { MigrationInterface, QueryRunner } from 'typeorm';

export class PromotionHelp1795550000000 implements MigrationInterface {
  name = 'PromotionHelp1795550000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "promotion_partners" ("user_id" integer NOT NULL, "partner" boolean NOT NULL DEFAULT true, "auth_code" character varying(12) NOT NULL, "reason" character varying(255) NOT NULL, "updated_by" integer NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_promotion_partners" PRIMARY KEY ("user_id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_promotion_partners_auth_code" ON "promotion_partners" ("auth_code") `);
    await queryRunner.query(
      `CREATE TABLE "promotion_rebates" ("id" BIGSERIAL NOT NULL, "source_entry" bigint NOT NULL, "inviter_id" integer NOT NULL, "invitee_id" integer NOT NULL, "kind" character varying(8) NOT NULL, "currency_id" integer NOT NULL, "fee" numeric(36,18) NOT NULL DEFAULT '0', "ratio" numeric(12,8) NOT NULL DEFAULT '0', "amount" numeric(36,18) NOT NULL DEFAULT '0', "status" character varying(8) NOT NULL DEFAULT 'pending', "paid_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_promotion_rebates" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_promotion_rebates_source" ON "promotion_rebates" ("source_entry") `);
    await queryRunner.query(`CREATE INDEX "ix_promotion_rebates_inviter" ON "promotion_rebates" ("inviter_id", "id") `);
    await queryRunner.query(`CREATE INDEX "ix_promotion_rebates_status" ON "promotion_rebates" ("status", "id") `);
    await queryRunner.query(`CREATE TABLE "promotion_cursor" ("id" integer NOT NULL, "entry_id" bigint NOT NULL, CONSTRAINT "PK_promotion_cursor" PRIMARY KEY ("id"))`);
    await queryRunner.query(
      `CREATE TABLE "help_feedback" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "category" character varying(16) NOT NULL, "content" character varying(1000) NOT NULL, "image" character varying(36), "status" character varying(8) NOT NULL DEFAULT 'open', "reply" character varying(1000), "replied_by" integer, "replied_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_help_feedback" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_help_feedback_user" ON "help_feedback" ("user_id", "id") `);
    await queryRunner.query(`CREATE INDEX "ix_help_feedback_status" ON "help_feedback" ("status", "id") `);
    await queryRunner.query(
      `CREATE TABLE "chat_conversations" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "status" character varying(8) NOT NULL DEFAULT 'open', "last_message_id" bigint NOT NULL DEFAULT '0', "user_read_id" bigint NOT NULL DEFAULT '0', "operator_read_id" bigint NOT NULL DEFAULT '0', "closed_by" integer, "closed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_chat_conversations" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_chat_conversations_open" ON "chat_conversations" ("user_id") WHERE status = 'open'`);
    await queryRunner.query(`CREATE INDEX "ix_chat_conversations_status" ON "chat_conversations" ("status", "last_message_id") `);
    await queryRunner.query(
      `CREATE TABLE "chat_messages" ("id" BIGSERIAL NOT NULL, "conversation_id" bigint NOT NULL, "sender" character varying(8) NOT NULL, "sender_id" integer NOT NULL, "text" character varying(1000) NOT NULL DEFAULT '', "image" character varying(36), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_chat_messages" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_chat_messages_conversation" ON "chat_messages" ("conversation_id", "id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "chat_messages"`);
    await queryRunner.query(`DROP TABLE "chat_conversations"`);
    await queryRunner.query(`DROP TABLE "help_feedback"`);
    await queryRunner.query(`DROP TABLE "promotion_cursor"`);
    await queryRunner.query(`DROP TABLE "promotion_rebates"`);
    await queryRunner.query(`DROP TABLE "promotion_partners"`);
  }
}
