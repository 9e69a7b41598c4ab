import { MigrationInterface, QueryRunner } from "typeorm";

export class Options1795308599675 implements MigrationInterface {
    name = 'Options1795308599675'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "option_orders" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "market_id" integer NOT NULL, "direction" character varying(4) NOT NULL, "quantity" numeric(36,18) NOT NULL DEFAULT '0', "fee" numeric(36,18) NOT NULL DEFAULT '0', "currency_id" integer NOT NULL, "seconds" integer NOT NULL, "profit_ratio" numeric(12,8) NOT NULL DEFAULT '0', "open_tick_id" bigint NOT NULL, "open_price" numeric(36,18) NOT NULL DEFAULT '0', "open_ts" TIMESTAMP WITH TIME ZONE NOT NULL, "deliver_at" TIMESTAMP WITH TIME ZONE NOT NULL, "status" character varying(12) NOT NULL DEFAULT 'pending', "result" character varying(4), "delivery_tick_id" bigint, "delivery_price" numeric(36,18), "delivery_ts" TIMESTAMP WITH TIME ZONE, "payout" numeric(36,18), "pnl" numeric(36,18), "pushed_at" TIMESTAMP WITH TIME ZONE, "client_id" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9081e291027d488a96cbc7e57ae" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_option_orders_client" ON "option_orders"  ("user_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_option_orders_due" ON "option_orders"  ("deliver_at") WHERE status = 'pending'`);
        await queryRunner.query(`CREATE INDEX "ix_option_orders_user" ON "option_orders"  ("user_id", "id") `);
        await queryRunner.query(`CREATE TABLE "option_periods" ("id" SERIAL NOT NULL, "seconds" integer NOT NULL, "profit_ratio" numeric(12,8) NOT NULL DEFAULT '0', "min_qty" numeric(36,18) NOT NULL DEFAULT '0', "max_qty" numeric(36,18) NOT NULL DEFAULT '0', "fee_rate" numeric(12,8) NOT NULL DEFAULT '0', "enabled" boolean NOT NULL DEFAULT true, "sort" integer NOT NULL DEFAULT '0', CONSTRAINT "UQ_d1e86c3b717124ec5b7f3529c92" UNIQUE ("seconds"), CONSTRAINT "PK_d115af0dddfc9dba9566ffcf96a" PRIMARY KEY ("id"))`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE "option_periods"`);
        await queryRunner.query(`DROP INDEX "public"."ix_option_orders_user"`);
        await queryRunner.query(`DROP INDEX "public"."ix_option_orders_due"`);
        await queryRunner.query(`DROP INDEX "public"."uq_option_orders_client"`);
        await queryRunner.query(`DROP TABLE "option_orders"`);
    }

}
