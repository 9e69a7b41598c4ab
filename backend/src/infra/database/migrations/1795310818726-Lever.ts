import { MigrationInterface, QueryRunner } from "typeorm";

export class Lever1795310818726 implements MigrationInterface {
    name = 'Lever1795310818726'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "lever_configs" ("market_id" integer NOT NULL, "multiples" jsonb NOT NULL, "lot_value" numeric(36,18) NOT NULL DEFAULT '0', "min_lots" integer NOT NULL, "max_lots" integer NOT NULL, "fee_rate" numeric(12,8) NOT NULL DEFAULT '0', "maintenance_rate" numeric(12,8) NOT NULL DEFAULT '0', "enabled" boolean NOT NULL DEFAULT true, CONSTRAINT "PK_fe662994a52e217280489ca8d18" PRIMARY KEY ("market_id"))`);
        await queryRunner.query(`CREATE TABLE "lever_cursors" ("market_id" integer NOT NULL, "tick_id" bigint NOT NULL, CONSTRAINT "PK_e873fca7c5dd9517181dc435472" PRIMARY KEY ("market_id"))`);
        await queryRunner.query(`CREATE TABLE "lever_positions" ("id" BIGSERIAL NOT NULL, "user_id" integer NOT NULL, "market_id" integer NOT NULL, "side" character varying(5) NOT NULL, "type" character varying(6) NOT NULL, "lots" integer NOT NULL, "multiple" integer NOT NULL, "lot_value" numeric(36,18) NOT NULL DEFAULT '0', "margin" numeric(36,18) NOT NULL DEFAULT '0', "fee" numeric(36,18) NOT NULL DEFAULT '0', "maintenance_rate" numeric(12,8) NOT NULL DEFAULT '0', "target_price" numeric(36,18), "take_profit" numeric(36,18) NOT NULL DEFAULT '0', "stop_loss" numeric(36,18) NOT NULL DEFAULT '0', "status" character varying(10) NOT NULL DEFAULT 'pending', "open_price" numeric(36,18), "open_tick_id" bigint, "opened_at" TIMESTAMP WITH TIME ZONE, "close_price" numeric(36,18), "close_tick_id" bigint, "close_reason" character varying(12), "closed_at" TIMESTAMP WITH TIME ZONE, "pnl" numeric(36,18), "client_id" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_84c0216b5bd15a118ebda184c4e" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_lever_positions_client" ON "lever_positions"  ("user_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_lever_positions_open" ON "lever_positions"  ("market_id", "status") WHERE status IN ('pending', 'holding')`);
        await queryRunner.query(`CREATE INDEX "ix_lever_positions_user" ON "lever_positions"  ("user_id", "id") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_lever_positions_user"`);
        await queryRunner.query(`DROP INDEX "public"."ix_lever_positions_open"`);
        await queryRunner.query(`DROP INDEX "public"."uq_lever_positions_client"`);
        await queryRunner.query(`DROP TABLE "lever_positions"`);
        await queryRunner.query(`DROP TABLE "lever_cursors"`);
        await queryRunner.query(`DROP TABLE "lever_configs"`);
    }

}
