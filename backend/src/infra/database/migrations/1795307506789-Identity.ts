import { MigrationInterface, QueryRunner } from "typeorm";

export class Identity1795307506789 implements MigrationInterface {
    name = 'Identity1795307506789'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "identity_verifications" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "level" smallint NOT NULL, "status" character varying(16) NOT NULL, "country" character varying(64), "name" character varying(100), "id_type" character varying(16) NOT NULL, "id_number" character varying(32) NOT NULL, "address" character varying(255), "front_image" uuid NOT NULL, "back_image" uuid, "hand_image" uuid NOT NULL, "reason" character varying(255), "reviewed_by" integer, "reviewed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_42a93e679bc1d9568b6e80ea080" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_identity_verifications_status" ON "identity_verifications"  ("status", "level", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_identity_verifications_user" ON "identity_verifications"  ("user_id", "level", "id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_identity_verifications_open" ON "identity_verifications"  ("user_id", "level") WHERE status <> 'rejected'`);
        await queryRunner.query(`CREATE TABLE "uploads" ("id" uuid NOT NULL, "user_id" integer NOT NULL, "mime" character varying(32) NOT NULL, "bytes" integer NOT NULL, "width" integer NOT NULL, "height" integer NOT NULL, "storage_key" character varying(200) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_d1781d1eedd7459314f60f39bd3" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_uploads_user" ON "uploads"  ("user_id", "created_at") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_uploads_user"`);
        await queryRunner.query(`DROP TABLE "uploads"`);
        await queryRunner.query(`DROP INDEX "public"."uq_identity_verifications_open"`);
        await queryRunner.query(`DROP INDEX "public"."ix_identity_verifications_user"`);
        await queryRunner.query(`DROP INDEX "public"."ix_identity_verifications_status"`);
        await queryRunner.query(`DROP TABLE "identity_verifications"`);
    }

}
