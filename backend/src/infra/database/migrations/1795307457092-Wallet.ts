import { MigrationInterface, QueryRunner } from "typeorm";

export class Wallet1795307457092 implements MigrationInterface {
    name = 'Wallet1795307457092'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "fiat_rates" ("code" character varying(8) NOT NULL, "name" character varying(64) NOT NULL, "symbol" character varying(8) NOT NULL, "rate" numeric(24,8) NOT NULL DEFAULT '0', "sort" integer NOT NULL DEFAULT '0', "enabled" boolean NOT NULL DEFAULT true, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9d5a65445c5609a869e1da366cf" PRIMARY KEY ("code"))`);
        await queryRunner.query(`CREATE TABLE "deposits" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "currency_id" integer NOT NULL, "chain" character varying(16) NOT NULL, "address" character varying(200) NOT NULL, "amount" numeric(36,18) NOT NULL DEFAULT '0', "proof_upload_id" uuid NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'review', "reason" character varying(500), "client_id" character varying(64), "reviewed_by" integer, "reviewed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f49ba0cd446eaf7abb4953385d9" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deposits_client" ON "deposits"  ("user_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_deposits_status" ON "deposits"  ("status", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_deposits_user" ON "deposits"  ("user_id", "id") `);
        await queryRunner.query(`CREATE TABLE "withdraw_addresses" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "currency_id" integer NOT NULL, "chain" character varying(16) NOT NULL, "address" character varying(200) NOT NULL, "remark" character varying(64) NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_67a570e1c6d1a356757289fb2fe" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_withdraw_addresses" ON "withdraw_addresses"  ("user_id", "currency_id", "chain", "address") `);
        await queryRunner.query(`CREATE TABLE "withdrawals" ("id" SERIAL NOT NULL, "user_id" integer NOT NULL, "currency_id" integer NOT NULL, "chain" character varying(16) NOT NULL, "address" character varying(200) NOT NULL, "amount" numeric(36,18) NOT NULL DEFAULT '0', "fee" numeric(36,18) NOT NULL DEFAULT '0', "actual_amount" numeric(36,18) NOT NULL DEFAULT '0', "usdt_value" numeric(36,18) NOT NULL DEFAULT '0', "remark" character varying(200) NOT NULL DEFAULT '', "status" character varying(16) NOT NULL DEFAULT 'review', "reason" character varying(500), "tx_hash" character varying(200), "client_id" character varying(64), "reviewed_by" integer, "reviewed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9871ec481baa7755f8bd8b7c7e9" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_withdrawals_client" ON "withdrawals"  ("user_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_withdrawals_status" ON "withdrawals"  ("status", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_withdrawals_user" ON "withdrawals"  ("user_id", "id") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_withdrawals_user"`);
        await queryRunner.query(`DROP INDEX "public"."ix_withdrawals_status"`);
        await queryRunner.query(`DROP INDEX "public"."uq_withdrawals_client"`);
        await queryRunner.query(`DROP TABLE "withdrawals"`);
        await queryRunner.query(`DROP INDEX "public"."uq_withdraw_addresses"`);
        await queryRunner.query(`DROP TABLE "withdraw_addresses"`);
        await queryRunner.query(`DROP INDEX "public"."ix_deposits_user"`);
        await queryRunner.query(`DROP INDEX "public"."ix_deposits_status"`);
        await queryRunner.query(`DROP INDEX "public"."uq_deposits_client"`);
        await queryRunner.query(`DROP TABLE "deposits"`);
        await queryRunner.query(`DROP TABLE "fiat_rates"`);
    }

}
