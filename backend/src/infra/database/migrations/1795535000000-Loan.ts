import { MigrationInterface, QueryRunner } from "typeorm";

export class Loan1795535000000 implements MigrationInterface {
    name = 'Loan1795535000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "loan_orders" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "product_id" integer NOT NULL, "currency_id" integer NOT NULL, "amount" numeric(36,18) NOT NULL DEFAULT '0', "days" integer NOT NULL, "daily_rate" numeric(12,8) NOT NULL DEFAULT '0', "lender" character varying(64) NOT NULL, "front_image" character varying(36) NOT NULL, "back_image" character varying(36) NOT NULL, "passport_image" character varying(36) NOT NULL, "status" character varying(12) NOT NULL DEFAULT 'approving', "interest" numeric(36,18) NOT NULL DEFAULT '0', "repay_amount" numeric(36,18) NOT NULL DEFAULT '0', "remaining" numeric(36,18) NOT NULL DEFAULT '0', "pending" numeric(36,18) NOT NULL DEFAULT '0', "interest_paid" numeric(36,18) NOT NULL DEFAULT '0', "reason" character varying(500), "reviewed_by" integer, "reviewed_at" TIMESTAMP WITH TIME ZONE, "due_at" TIMESTAMP WITH TIME ZONE, "disbursed_at" TIMESTAMP WITH TIME ZONE, "overdue_at" TIMESTAMP WITH TIME ZONE, "repaid_at" TIMESTAMP WITH TIME ZONE, "client_id" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_785cfe5cd1631b74a51d6467cb5" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_loan_orders_client" ON "loan_orders"  ("user_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_loan_orders_status" ON "loan_orders"  ("status", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_loan_orders_user" ON "loan_orders"  ("user_id", "id") `);
        await queryRunner.query(`CREATE TABLE "loan_products" ("id" SERIAL NOT NULL, "code" character varying(32) NOT NULL, "name" character varying(64) NOT NULL, "lender" character varying(64) NOT NULL, "currency_id" integer NOT NULL, "min_amount" numeric(36,18) NOT NULL DEFAULT '0', "max_amount" numeric(36,18) NOT NULL DEFAULT '0', "cycles" jsonb NOT NULL, "daily_rate" numeric(12,8) NOT NULL DEFAULT '0', "repay_method" character varying(16) NOT NULL DEFAULT 'maturity', "enabled" boolean NOT NULL DEFAULT true, "sort" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_0ded6e24f8517fe705a93e84be6" UNIQUE ("code"), CONSTRAINT "PK_3524994d77fb59b9a76e589e7ef" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "loan_repayments" ("id" BIGSERIAL NOT NULL, "order_id" bigint NOT NULL, "user_id" integer NOT NULL, "currency_id" integer NOT NULL, "kind" character varying(8) NOT NULL, "amount" numeric(36,18) NOT NULL DEFAULT '0', "interest_part" numeric(36,18) NOT NULL DEFAULT '0', "principal_part" numeric(36,18) NOT NULL DEFAULT '0', "image" character varying(36), "status" character varying(12) NOT NULL, "reason" character varying(500), "reviewed_by" integer, "reviewed_at" TIMESTAMP WITH TIME ZONE, "client_id" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a37968e2dcfb72f910f5480cc16" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_loan_repayments_client" ON "loan_repayments"  ("user_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_loan_repayments_status" ON "loan_repayments"  ("status", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_loan_repayments_user" ON "loan_repayments"  ("user_id", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_loan_repayments_order" ON "loan_repayments"  ("order_id", "id") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_loan_repayments_order"`);
        await queryRunner.query(`DROP INDEX "public"."ix_loan_repayments_user"`);
        await queryRunner.query(`DROP INDEX "public"."ix_loan_repayments_status"`);
        await queryRunner.query(`DROP INDEX "public"."uq_loan_repayments_client"`);
        await queryRunner.query(`DROP TABLE "loan_repayments"`);
        await queryRunner.query(`DROP TABLE "loan_products"`);
        await queryRunner.query(`DROP INDEX "public"."ix_loan_orders_user"`);
        await queryRunner.query(`DROP INDEX "public"."ix_loan_orders_status"`);
        await queryRunner.query(`DROP INDEX "public"."uq_loan_orders_client"`);
        await queryRunner.query(`DROP TABLE "loan_orders"`);
    }

}
