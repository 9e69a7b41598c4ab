import { MigrationInterface, QueryRunner } from "typeorm";

/** Proof of liabilities: per-user salts, every published root, and the leaves that rebuild each user's proof. */
export class Proof1795595000000 implements MigrationInterface {
    name = 'Proof1795595000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "proof_salts" ("user_id" integer NOT NULL, "salt" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_890dc2a3e4198e4f404b6e47c6d" PRIMARY KEY ("user_id"))`);
        await queryRunner.query(`CREATE TABLE "proof_roots" ("id" BIGSERIAL NOT NULL, "root" character varying(64) NOT NULL, "currencies" jsonb NOT NULL, "totals" jsonb NOT NULL, "watermark_seq" bigint NOT NULL, "watermark_entry_id" bigint NOT NULL, "leaf_count" integer NOT NULL, "trigger" character varying(16) NOT NULL, "actor" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_be4413072717fe48fc876dd7e9d" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "proof_leaves" ("root_id" bigint NOT NULL, "position" integer NOT NULL, "user_id" integer NOT NULL, "balances" jsonb NOT NULL, CONSTRAINT "PK_e9fb37bf31811095160ecd6c16f" PRIMARY KEY ("root_id", "position"))`);
        await queryRunner.query(`CREATE INDEX "ix_proof_leaves_user" ON "proof_leaves" ("user_id", "root_id") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_proof_leaves_user"`);
        await queryRunner.query(`DROP TABLE "proof_leaves"`);
        await queryRunner.query(`DROP TABLE "proof_roots"`);
        await queryRunner.query(`DROP TABLE "proof_salts"`);
    }

}
