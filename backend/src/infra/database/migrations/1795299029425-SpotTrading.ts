import { MigrationInterface, QueryRunner } from "typeorm";

export class SpotTrading1795299029425 implements MigrationInterface {
    name = 'SpotTrading1795299029425'

    public async up(queryRunner: QueryRunner): Promise<void> {
        // Engine order ids: assigned when an order is journaled.
        await queryRunner.query(`CREATE SEQUENCE "order_ids" AS bigint START 1`);
        await queryRunner.query(`CREATE TABLE "orders" ("id" bigint NOT NULL, "user_id" integer NOT NULL, "market_id" integer NOT NULL, "side" character varying(4) NOT NULL, "type" character varying(8) NOT NULL, "price" numeric(36,18), "quantity" numeric(36,18), "quote_amount" numeric(36,18), "filled_qty" numeric(36,18) NOT NULL DEFAULT '0', "filled_quote" numeric(36,18) NOT NULL DEFAULT '0', "fee" numeric(36,18) NOT NULL DEFAULT '0', "frozen_currency_id" integer NOT NULL, "frozen_left" numeric(36,18) NOT NULL DEFAULT '0', "status" character varying(12) NOT NULL, "client_order_id" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_710e2d4957aa5878dfe94e4ac2f" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_orders_market_status" ON "orders"  ("market_id", "status") `);
        await queryRunner.query(`CREATE INDEX "ix_orders_user_status" ON "orders"  ("user_id", "status", "id") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_orders_client_id" ON "orders"  ("user_id", "client_order_id") WHERE client_order_id IS NOT NULL`);
        await queryRunner.query(`CREATE TABLE "trades" ("market_id" integer NOT NULL, "trade_id" bigint NOT NULL, "price" numeric(36,18) NOT NULL, "quantity" numeric(36,18) NOT NULL, "quote_quantity" numeric(36,18) NOT NULL, "taker_side" character varying(4) NOT NULL, "maker_order_id" bigint NOT NULL, "taker_order_id" bigint NOT NULL, "maker_user_id" integer NOT NULL, "taker_user_id" integer NOT NULL, "maker_fee" numeric(36,18) NOT NULL DEFAULT '0', "taker_fee" numeric(36,18) NOT NULL DEFAULT '0', "executed_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a52aa74cb655b1a9ee2ca02bcf4" PRIMARY KEY ("market_id", "trade_id"))`);
        await queryRunner.query(`CREATE INDEX "ix_trades_market_time" ON "trades"  ("market_id", "executed_at") `);
        await queryRunner.query(`CREATE TABLE "engine_snapshots" ("id" BIGSERIAL NOT NULL, "market_id" integer NOT NULL, "journal_version" integer NOT NULL, "book" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9e52665a20cdfa3e3ed269f7a65" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "klines" ("market_id" integer NOT NULL, "period" character varying(8) NOT NULL, "open_time" TIMESTAMP WITH TIME ZONE NOT NULL, "open" numeric(36,18) NOT NULL, "high" numeric(36,18) NOT NULL, "low" numeric(36,18) NOT NULL, "close" numeric(36,18) NOT NULL, "volume" numeric(36,18) NOT NULL DEFAULT '0', "quote_volume" numeric(36,18) NOT NULL DEFAULT '0', "trades" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_5edecde686e90b7e6414d0c7a4c" PRIMARY KEY ("market_id", "period", "open_time"))`);
        await queryRunner.query(`CREATE TABLE "mark_prices" ("id" BIGSERIAL NOT NULL, "market_id" integer NOT NULL, "price" numeric(36,18) NOT NULL, "ts" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_ffc33b2ab688fd43874b4f7a1b6" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_mark_prices_market_time" ON "mark_prices"  ("market_id", "ts") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP SEQUENCE "order_ids"`);
        await queryRunner.query(`DROP INDEX "public"."ix_mark_prices_market_time"`);
        await queryRunner.query(`DROP TABLE "mark_prices"`);
        await queryRunner.query(`DROP TABLE "klines"`);
        await queryRunner.query(`DROP TABLE "engine_snapshots"`);
        await queryRunner.query(`DROP INDEX "public"."ix_trades_market_time"`);
        await queryRunner.query(`DROP TABLE "trades"`);
        await queryRunner.query(`DROP INDEX "public"."uq_orders_client_id"`);
        await queryRunner.query(`DROP INDEX "public"."ix_orders_user_status"`);
        await queryRunner.query(`DROP INDEX "public"."ix_orders_market_status"`);
        await queryRunner.query(`DROP TABLE "orders"`);
    }

}
