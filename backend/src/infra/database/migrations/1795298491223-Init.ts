import { MigrationInterface, QueryRunner } from "typeorm";

export class Init1795298491223 implements MigrationInterface {
    name = 'Init1795298491223'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "admins" ("id" SERIAL NOT NULL, "email" character varying(200) NOT NULL, "password_hash" character varying(200) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_051db7d37d478a69a7432df1479" UNIQUE ("email"), CONSTRAINT "PK_e3b38270c97a854c48d2e80874e" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "balances" ("id" BIGSERIAL NOT NULL, "owner_type" character varying(16) NOT NULL, "owner_id" integer NOT NULL, "account_type" character varying(16) NOT NULL, "currency_id" integer NOT NULL, "available" numeric(36,18) NOT NULL DEFAULT 0, "frozen" numeric(36,18) NOT NULL DEFAULT 0, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "ck_balances_non_negative" CHECK (account_type = 'external' OR (available >= 0 AND frozen >= 0)), CONSTRAINT "PK_74904758e813e401abc3d4261c2" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_balances_account" ON "balances"  ("owner_type", "owner_id", "account_type", "currency_id") `);
        await queryRunner.query(`CREATE TABLE "ledger_entries" ("id" BIGSERIAL NOT NULL, "event_seq" bigint NOT NULL, "owner_type" character varying(16) NOT NULL, "owner_id" integer NOT NULL, "account_type" character varying(16) NOT NULL, "currency_id" integer NOT NULL, "code" integer NOT NULL, "available_delta" numeric(36,18) NOT NULL DEFAULT 0, "frozen_delta" numeric(36,18) NOT NULL DEFAULT 0, "available_after" numeric(36,18) NOT NULL DEFAULT 0, "frozen_after" numeric(36,18) NOT NULL DEFAULT 0, "ref_type" character varying(32) NOT NULL, "ref_id" character varying(64) NOT NULL, "memo" character varying(200) NOT NULL DEFAULT '', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6efcb84411d3f08b08450ae75d5" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_ledger_entries_event" ON "ledger_entries"  ("event_seq") `);
        await queryRunner.query(`CREATE INDEX "ix_ledger_entries_code" ON "ledger_entries"  ("code") `);
        await queryRunner.query(`CREATE INDEX "ix_ledger_entries_account" ON "ledger_entries"  ("owner_type", "owner_id", "currency_id", "id") `);
        await queryRunner.query(`CREATE TABLE "area_codes" ("id" SERIAL NOT NULL, "iso" character(2) NOT NULL, "dial_code" character varying(8) NOT NULL, "name" character varying(64) NOT NULL, "sort" integer NOT NULL DEFAULT '0', CONSTRAINT "UQ_9f5cf45cf05ffecfa012bc4056e" UNIQUE ("iso"), CONSTRAINT "PK_d6c804f6de303da0ce3b330583e" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "chain_types" ("id" SERIAL NOT NULL, "currency_id" integer NOT NULL, "chain" character varying(16) NOT NULL, "deposit_address" character varying(200) NOT NULL DEFAULT '', "enabled" boolean NOT NULL DEFAULT true, CONSTRAINT "PK_43ee2af65331c121faff4738519" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_chain_types_coin_chain" ON "chain_types"  ("currency_id", "chain") `);
        await queryRunner.query(`CREATE TABLE "coins" ("id" integer NOT NULL, "symbol" character varying(16) NOT NULL, "name" character varying(64) NOT NULL, "display_decimals" smallint NOT NULL, "min_deposit" numeric(36,18) NOT NULL DEFAULT 0, "min_withdraw" numeric(36,18) NOT NULL DEFAULT 0, "withdraw_fee" numeric(36,18) NOT NULL DEFAULT 0, "sort" integer NOT NULL DEFAULT '0', "enabled" boolean NOT NULL DEFAULT true, CONSTRAINT "UQ_c3e2eaf8718a5b3e5f56f50debb" UNIQUE ("symbol"), CONSTRAINT "PK_af01e5dcef2c05e6385611205c6" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "markets" ("id" SERIAL NOT NULL, "symbol" character varying(32) NOT NULL, "base_currency_id" integer NOT NULL, "quote_currency_id" integer NOT NULL, "tick_size" numeric(36,18) NOT NULL DEFAULT 0, "lot_size" numeric(36,18) NOT NULL DEFAULT 0, "min_qty" numeric(36,18) NOT NULL DEFAULT 0, "maker_fee" numeric(12,8) NOT NULL DEFAULT 0, "taker_fee" numeric(12,8) NOT NULL DEFAULT 0, "sort" integer NOT NULL DEFAULT '0', "enabled" boolean NOT NULL DEFAULT true, CONSTRAINT "UQ_447a6e3bfcc2802e9ee55f7e2e2" UNIQUE ("symbol"), CONSTRAINT "PK_dda44129b32f21ae9f1c28dcf99" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "settings" ("key" character varying(64) NOT NULL, "value" jsonb NOT NULL, CONSTRAINT "PK_c8639b7626fa94ba8265628f214" PRIMARY KEY ("key"))`);
        await queryRunner.query(`CREATE TABLE "users" ("id" SERIAL NOT NULL, "account" character varying(200) NOT NULL, "area_code" character varying(8), "phone" character varying(20), "email" character varying(200), "nickname" character varying(64) NOT NULL, "password_hash" character varying(200) NOT NULL, "fund_password_hash" character varying(200), "invite_code" character varying(12) NOT NULL, "inviter_id" integer, "verification_level" smallint NOT NULL DEFAULT '0', "lang" character varying(4) NOT NULL DEFAULT 'en', "status" character varying(16) NOT NULL DEFAULT 'active', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_invite_code" ON "users"  ("invite_code") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_email" ON "users"  ("email") WHERE email IS NOT NULL`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_phone" ON "users"  ("area_code", "phone") WHERE phone IS NOT NULL`);
        await queryRunner.query(`CREATE TABLE "verification_codes" ("id" BIGSERIAL NOT NULL, "channel" character varying(8) NOT NULL, "target" character varying(200) NOT NULL, "purpose" character varying(32) NOT NULL, "code_hash" character(64) NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "consumed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_18741b6b8bf1680dbf5057421d7" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_verification_codes_target" ON "verification_codes"  ("target", "purpose", "id") `);
        await queryRunner.query(`CREATE TABLE "auth_tokens" ("id" BIGSERIAL NOT NULL, "token_hash" character(64) NOT NULL, "subject_type" character varying(8) NOT NULL, "subject_id" integer NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_3a94cfa1eada85ac2bf6f3016b7" UNIQUE ("token_hash"), CONSTRAINT "PK_41e9ddfbb32da18c4e85e45c2fd" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_auth_tokens_subject" ON "auth_tokens"  ("subject_type", "subject_id") `);
        await queryRunner.query(`CREATE TABLE "events" ("seq" BIGSERIAL NOT NULL, "stream_id" character varying(200) NOT NULL, "stream_version" integer NOT NULL, "type" character varying(100) NOT NULL, "payload" jsonb NOT NULL, "metadata" jsonb NOT NULL DEFAULT '{}', "command_id" character varying(100), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_44840d7c5944a3bfbf21a6113d8" PRIMARY KEY ("seq"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_events_command_id" ON "events"  ("command_id") WHERE command_id IS NOT NULL`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_events_stream_version" ON "events"  ("stream_id", "stream_version") `);
        await queryRunner.query(`CREATE TABLE "outbox" ("id" BIGSERIAL NOT NULL, "channel" character varying(8) NOT NULL, "recipient" character varying(200) NOT NULL, "purpose" character varying(32) NOT NULL, "body" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "sent_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_340ab539f309f03bdaa14aa7649" PRIMARY KEY ("id"))`);
        // Events and ledger entries are append-only: the database refuses to change or delete them.
        await queryRunner.query(`CREATE FUNCTION kestrel_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$`);
        await queryRunner.query(`CREATE TRIGGER tr_events_append_only BEFORE UPDATE OR DELETE ON "events" FOR EACH ROW EXECUTE FUNCTION kestrel_append_only()`);
        await queryRunner.query(`CREATE TRIGGER tr_ledger_entries_append_only BEFORE UPDATE OR DELETE ON "ledger_entries" FOR EACH ROW EXECUTE FUNCTION kestrel_append_only()`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TRIGGER tr_ledger_entries_append_only ON "ledger_entries"`);
        await queryRunner.query(`DROP TRIGGER tr_events_append_only ON "events"`);
        await queryRunner.query(`DROP FUNCTION kestrel_append_only()`);
        await queryRunner.query(`DROP TABLE "outbox"`);
        await queryRunner.query(`DROP INDEX "public"."uq_events_stream_version"`);
        await queryRunner.query(`DROP INDEX "public"."uq_events_command_id"`);
        await queryRunner.query(`DROP TABLE "events"`);
        await queryRunner.query(`DROP INDEX "public"."ix_auth_tokens_subject"`);
        await queryRunner.query(`DROP TABLE "auth_tokens"`);
        await queryRunner.query(`DROP INDEX "public"."ix_verification_codes_target"`);
        await queryRunner.query(`DROP TABLE "verification_codes"`);
        await queryRunner.query(`DROP INDEX "public"."uq_users_phone"`);
        await queryRunner.query(`DROP INDEX "public"."uq_users_email"`);
        await queryRunner.query(`DROP INDEX "public"."uq_users_invite_code"`);
        await queryRunner.query(`DROP TABLE "users"`);
        await queryRunner.query(`DROP TABLE "settings"`);
        await queryRunner.query(`DROP TABLE "markets"`);
        await queryRunner.query(`DROP TABLE "coins"`);
        await queryRunner.query(`DROP INDEX "public"."uq_chain_types_coin_chain"`);
        await queryRunner.query(`DROP TABLE "chain_types"`);
        await queryRunner.query(`DROP TABLE "area_codes"`);
        await queryRunner.query(`DROP INDEX "public"."ix_ledger_entries_account"`);
        await queryRunner.query(`DROP INDEX "public"."ix_ledger_entries_code"`);
        await queryRunner.query(`DROP INDEX "public"."ix_ledger_entries_event"`);
        await queryRunner.query(`DROP TABLE "ledger_entries"`);
        await queryRunner.query(`DROP INDEX "public"."uq_balances_account"`);
        await queryRunner.query(`DROP TABLE "balances"`);
        await queryRunner.query(`DROP TABLE "admins"`);
    }

}
