import { MigrationInterface, QueryRunner } from "typeorm";

export class Wealth1795510000000 implements MigrationInterface {
    name = 'Wealth1795510000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "wealth_orders" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "product_id" integer NOT NULL, "kind" character varying(10) NOT NULL, "currency_id" integer NOT NULL, "amount" numeric(36,18) NOT NULL DEFAULT '0', "days" integer NOT NULL DEFAULT '0', "daily_interest" numeric(36,18) NOT NULL DEFAULT '0', "total_interest" numeric(36,18) NOT NULL DEFAULT '0', "reserve" numeric(36,18) NOT NULL DEFAULT '0', "earned" numeric(36,18) NOT NULL DEFAULT '0', "paid_days" integer NOT NULL DEFAULT '0', "start_day" integer NOT NULL, "end_at" TIMESTAMP WITH TIME ZONE, "status" character varying(12) NOT NULL DEFAULT 'hosting', "penalty_mode" character varying(8) NOT NULL, "penalty_ratio" numeric(12,8) NOT NULL DEFAULT '0', "penalty_multiple" numeric(12,8) NOT NULL DEFAULT '0', "penalty" numeric(36,18) DEFAULT '0', "client_id" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "closed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_2426f893402122f0e72e22df834" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_wealth_orders_client" ON "wealth_orders"  ("user_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_wealth_orders_hosting" ON "wealth_orders"  ("id") WHERE status = 'hosting'`);
        await queryRunner.query(`CREATE INDEX "ix_wealth_orders_user" ON "wealth_orders"  ("user_id", "status", "id") `);
        await queryRunner.query(`CREATE TABLE "wealth_products" ("id" SERIAL NOT NULL, "code" character varying(40) NOT NULL, "kind" character varying(10) NOT NULL, "name" character varying(80) NOT NULL, "currency_id" integer NOT NULL, "days" integer NOT NULL DEFAULT '0', "min_amount" numeric(36,18) NOT NULL DEFAULT '0', "rate" numeric(12,8) NOT NULL DEFAULT '0', "rate_mode" character varying(8) NOT NULL DEFAULT 'daily', "accrual_min" numeric(36,18) NOT NULL DEFAULT '0', "penalty_mode" character varying(8) NOT NULL DEFAULT 'ratio', "penalty_ratio" numeric(12,8) NOT NULL DEFAULT '0', "penalty_multiple" numeric(12,8) NOT NULL DEFAULT '0', "capacity" numeric(36,18) NOT NULL DEFAULT '0', "sold" numeric(36,18) NOT NULL DEFAULT '0', "sale_start" TIMESTAMP WITH TIME ZONE NOT NULL, "sale_end" TIMESTAMP WITH TIME ZONE, "enabled" boolean NOT NULL DEFAULT true, "sort" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_681307b741fe9176d757d27e9c3" UNIQUE ("code"), CONSTRAINT "PK_a1d4021714e277b2fcc531c6e1f" PRIMARY KEY ("id"))`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_wealth_orders_user"`);
        await queryRunner.query(`DROP INDEX "public"."ix_wealth_orders_hosting"`);
        await queryRunner.query(`DROP INDEX "public"."uq_wealth_orders_client"`);
        await queryRunner.query(`DROP TABLE "wealth_products"`);
        await queryRunner.query(`DROP TABLE "wealth_orders"`);
    }

}
