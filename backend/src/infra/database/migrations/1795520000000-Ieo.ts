import { MigrationInterface, QueryRunner } from "typeorm";

export class Ieo1795520000000 implements MigrationInterface {
    name = 'Ieo1795520000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "ieo_projects" ("id" SERIAL NOT NULL, "coin_id" integer NOT NULL, "currency_id" integer NOT NULL, "price" numeric(36,18) NOT NULL DEFAULT '0', "supply" numeric(36,18) NOT NULL DEFAULT '0', "start_at" TIMESTAMP WITH TIME ZONE NOT NULL, "end_at" TIMESTAMP WITH TIME ZONE NOT NULL, "min_qty" numeric(36,18) NOT NULL DEFAULT '0', "max_qty" numeric(36,18) NOT NULL DEFAULT '0', "website" character varying(255) NOT NULL DEFAULT '', "white_paper" character varying(255) NOT NULL DEFAULT '', "intro" character varying(2000) NOT NULL DEFAULT '', "status" character varying(12) NOT NULL DEFAULT 'open', "requested" numeric(36,18), "allocated" numeric(36,18), "remainder" numeric(36,18), "ratio" numeric(12,8), "payments" numeric(36,18), "refunded" numeric(36,18), "proceeds" numeric(36,18), "subscribers" integer, "allocated_at" TIMESTAMP WITH TIME ZONE, "distributed_at" TIMESTAMP WITH TIME ZONE, "market_id" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_082a4bfe4157dc4e39f31bea10e" UNIQUE ("coin_id"), CONSTRAINT "PK_662d088852400620e8e594812e7" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "ieo_subscriptions" ("id" BIGSERIAL NOT NULL, "project_id" integer NOT NULL, "user_id" integer NOT NULL, "quantity" numeric(36,18) NOT NULL DEFAULT '0', "payment" numeric(36,18) NOT NULL DEFAULT '0', "status" character varying(12) NOT NULL DEFAULT 'pending', "allocation" numeric(36,18), "paid" numeric(36,18), "refund" numeric(36,18), "settle_result" character varying(24), "settled_at" TIMESTAMP WITH TIME ZONE, "client_id" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_76ba79836a6ac3d9f4a6aff35f6" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_ieo_subscriptions_client" ON "ieo_subscriptions"  ("user_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_ieo_subscriptions_user" ON "ieo_subscriptions"  ("user_id", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_ieo_subscriptions_project" ON "ieo_subscriptions"  ("project_id", "status") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_ieo_subscriptions_project"`);
        await queryRunner.query(`DROP INDEX "public"."ix_ieo_subscriptions_user"`);
        await queryRunner.query(`DROP INDEX "public"."uq_ieo_subscriptions_client"`);
        await queryRunner.query(`DROP TABLE "ieo_subscriptions"`);
        await queryRunner.query(`DROP TABLE "ieo_projects"`);
    }

}
