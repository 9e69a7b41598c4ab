import { MigrationInterface, QueryRunner } from "typeorm";

export class Nft1795540000000 implements MigrationInterface {
    name = 'Nft1795540000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "nft_collections" ("id" SERIAL NOT NULL, "name" character varying(80) NOT NULL, "description" character varying(2000) NOT NULL DEFAULT '', "currency_id" integer NOT NULL, "fee_rate" numeric(12,8) NOT NULL DEFAULT '0', "created_by" character varying(40) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_238ea2e891083be72d209c215eb" UNIQUE ("name"), CONSTRAINT "PK_fc1b262811ac2650e01dab48fe5" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "nft_items" ("id" SERIAL NOT NULL, "collection_id" integer NOT NULL, "token_no" integer NOT NULL, "name" character varying(80) NOT NULL, "description" character varying(2000) NOT NULL DEFAULT '', "image_id" uuid NOT NULL, "attributes" jsonb NOT NULL DEFAULT '{}', "owner_id" integer NOT NULL, "state" character varying(10) NOT NULL DEFAULT 'held', "price" numeric(36,18), "listing_id" bigint, "sale_id" bigint, "last_price" numeric(36,18), "minted_by" character varying(40) NOT NULL, "minted_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "uq_nft_items_token" UNIQUE ("collection_id", "token_no"), CONSTRAINT "PK_8e3a3c9a55bd9d90699ad92b76a" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_nft_items_state" ON "nft_items"  ("state", "collection_id")`);
        await queryRunner.query(`CREATE INDEX "ix_nft_items_owner" ON "nft_items"  ("owner_id", "id")`);
        await queryRunner.query(`CREATE TABLE "nft_listings" ("id" BIGSERIAL NOT NULL, "item_id" integer NOT NULL, "seller_id" integer NOT NULL, "price" numeric(36,18) NOT NULL DEFAULT '0', "status" character varying(10) NOT NULL DEFAULT 'active', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "closed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_06fb2fe86b77e102923f420164b" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_nft_listings_item" ON "nft_listings"  ("item_id", "id")`);
        await queryRunner.query(`CREATE INDEX "ix_nft_listings_seller" ON "nft_listings"  ("seller_id", "id")`);
        await queryRunner.query(`CREATE TABLE "nft_sales" ("id" BIGSERIAL NOT NULL, "item_id" integer NOT NULL, "collection_id" integer NOT NULL, "listing_id" bigint NOT NULL, "seller_id" integer NOT NULL, "buyer_id" integer NOT NULL, "currency_id" integer NOT NULL, "price" numeric(36,18) NOT NULL DEFAULT '0', "fee" numeric(36,18) NOT NULL DEFAULT '0', "proceeds" numeric(36,18) NOT NULL DEFAULT '0', "status" character varying(10) NOT NULL DEFAULT 'pending', "result" character varying(32), "client_id" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "settled_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_f0226b9907967cebd07e2d4bcc1" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_nft_sales_client" ON "nft_sales"  ("buyer_id", "client_id") WHERE client_id IS NOT NULL`);
        await queryRunner.query(`CREATE INDEX "ix_nft_sales_status" ON "nft_sales"  ("status", "id")`);
        await queryRunner.query(`CREATE INDEX "ix_nft_sales_item" ON "nft_sales"  ("item_id", "id")`);
        await queryRunner.query(`CREATE INDEX "ix_nft_sales_seller" ON "nft_sales"  ("seller_id", "id")`);
        await queryRunner.query(`CREATE INDEX "ix_nft_sales_buyer" ON "nft_sales"  ("buyer_id", "id")`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_nft_sales_buyer"`);
        await queryRunner.query(`DROP INDEX "public"."ix_nft_sales_seller"`);
        await queryRunner.query(`DROP INDEX "public"."ix_nft_sales_item"`);
        await queryRunner.query(`DROP INDEX "public"."ix_nft_sales_status"`);
        await queryRunner.query(`DROP INDEX "public"."uq_nft_sales_client"`);
        await queryRunner.query(`DROP TABLE "nft_sales"`);
        await queryRunner.query(`DROP INDEX "public"."ix_nft_listings_seller"`);
        await queryRunner.query(`DROP INDEX "public"."ix_nft_listings_item"`);
        await queryRunner.query(`DROP TABLE "nft_listings"`);
        await queryRunner.query(`DROP INDEX "public"."ix_nft_items_owner"`);
        await queryRunner.query(`DROP INDEX "public"."ix_nft_items_state"`);
        await queryRunner.query(`DROP TABLE "nft_items"`);
        await queryRunner.query(`DROP TABLE "nft_collections"`);
    }

}
