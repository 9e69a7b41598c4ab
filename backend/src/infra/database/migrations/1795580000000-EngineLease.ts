import { MigrationInterface, QueryRunner } from "typeorm";

/** The sequencer's lease with a fencing token (one engine process at a time, "Scale beyond one process"). */
export class EngineLease1795580000000 implements MigrationInterface {
    name = 'EngineLease1795580000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "engine_lease" ("name" character varying(32) NOT NULL, "holder" character varying(128) NOT NULL, "token" bigint NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "acquired_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_engine_lease" PRIMARY KEY ("name"))`);
        await queryRunner.query(`ALTER TABLE "sequencer_journal" ADD "token" bigint`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "sequencer_journal" DROP COLUMN "token"`);
        await queryRunner.query(`DROP TABLE "engine_lease"`);
    }

}
