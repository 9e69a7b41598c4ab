import { MigrationInterface, QueryRunner } from "typeorm";

export class UserMessages1795307167728 implements MigrationInterface {
    name = 'UserMessages1795307167728'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "user_messages" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "title_key" character varying(64) NOT NULL, "params" jsonb NOT NULL DEFAULT '{}', "ref" character varying(64) NOT NULL DEFAULT '', "read_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5a90e206d5e3dfde48f640ea7c6" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_user_messages_user" ON "user_messages"  ("user_id", "id") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_user_messages_user"`);
        await queryRunner.query(`DROP TABLE "user_messages"`);
    }

}
