import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Spot core v2 (docs/architecture.md): the sequencer owns the trade-account balances. Its
 * journal, snapshots, projection watermark and outbox; client order ids deduplicated by the
 * sequencer (the unique index goes); the v1 books are not carried over: resting v1 orders are
 * cancelled and their frozen funds released (code 902), recorded in the ledger; and a guard
 * that lets only the projector write the balances and entries of the sequencer's accounts.
 */
export class SpotCoreV21795500881265 implements MigrationInterface {
    name = 'SpotCoreV21795500881265'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."uq_orders_client_id"`);
        await queryRunner.query(`CREATE TABLE "sequencer_journal" ("seq" bigint NOT NULL, "ts" bigint NOT NULL, "commands" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f4624a89223262ab318745831d7" PRIMARY KEY ("seq"))`);
        await queryRunner.query(`CREATE TABLE "sequencer_snapshots" ("seq" bigint NOT NULL, "state" jsonb NOT NULL, "hash" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_40fc9932fad89a22735f8c707ad" PRIMARY KEY ("seq"))`);
        await queryRunner.query(`CREATE TABLE "sequencer_projection" ("id" smallint NOT NULL, "seq" bigint NOT NULL, CONSTRAINT "PK_d7612639aad26eee3814f06e609" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE TABLE "sequencer_outbox" ("id" BIGSERIAL NOT NULL, "command_id" character varying(100) NOT NULL, "command" jsonb NOT NULL, "applied_seq" bigint, "result" character varying(32), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_fd4e43aee2d1e5337da42b1d89b" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_sequencer_outbox_command" ON "sequencer_outbox"  ("command_id") `);
        await queryRunner.query(`CREATE INDEX "ix_sequencer_outbox_pending" ON "sequencer_outbox"  ("id") WHERE applied_seq IS NULL`);
        await queryRunner.query(`CREATE INDEX "ix_orders_client_id" ON "orders"  ("user_id", "client_order_id") WHERE client_order_id IS NOT NULL`);
        // ~8 ledger rows per order: no index nobody reads by (code, event).
        await queryRunner.query(`DROP INDEX "public"."ix_ledger_entries_code"`);
        await queryRunner.query(`DROP INDEX "public"."ix_ledger_entries_event"`);
        // v1 resting orders: cancelled, their frozen funds released with a recorded 902 entry each.
        await queryRunner.query(`CREATE TEMP TABLE v1_open ON COMMIT DROP AS
          SELECT id, user_id, frozen_currency_id AS currency_id, frozen_left AS amount FROM orders WHERE status = 'waiting' AND frozen_left > 0`);
        await queryRunner.query(`INSERT INTO ledger_entries (event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo)
          SELECT 0, 'user', o.user_id, 'coin', o.currency_id, 902, o.amount, -o.amount,
                 b.available + SUM(o.amount) OVER w, b.frozen - SUM(o.amount) OVER w, 'order', o.id::text, 'spot core v2 upgrade'
          FROM v1_open o JOIN balances b ON b.owner_type = 'user' AND b.owner_id = o.user_id AND b.account_type = 'coin' AND b.currency_id = o.currency_id
          WINDOW w AS (PARTITION BY o.user_id, o.currency_id ORDER BY o.id ROWS UNBOUNDED PRECEDING)`);
        await queryRunner.query(`UPDATE balances b SET available = b.available + s.amount, frozen = b.frozen - s.amount, updated_at = now()
          FROM (SELECT user_id, currency_id, SUM(amount) AS amount FROM v1_open GROUP BY 1, 2) s
          WHERE b.owner_type = 'user' AND b.owner_id = s.user_id AND b.account_type = 'coin' AND b.currency_id = s.currency_id`);
        await queryRunner.query(`UPDATE orders SET status = 'cancelled', frozen_left = 0, updated_at = now() WHERE status = 'waiting'`);
        await queryRunner.query(`DROP TABLE IF EXISTS "engine_snapshots"`);
        // The second writer is impossible: only the projector (SET LOCAL kestrel.writer = 'projector') writes these accounts.
        // Statement-level (transition tables): one check per statement, not a plpgsql call per row on the hot path.
        for (const [fn, rows] of [['kestrel_sequencer_accounts', 'changed'], ['kestrel_sequencer_accounts_old', 'old_rows']])
          await queryRunner.query(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF COALESCE(current_setting('kestrel.writer', true), '') <> 'projector'
                 AND EXISTS (SELECT 1 FROM ${rows} WHERE account_type IN ('coin', 'spot-fee', 'desk')) THEN
                RAISE EXCEPTION 'trade and house accounts are written only by the sequencer''s projector' USING ERRCODE = 'P0001';
              END IF;
              RETURN NULL;
            END $$`);
        // Rows as they become (insert, update) and as they were (update: no moving a row out of these accounts; delete).
        await queryRunner.query(`CREATE TRIGGER tr_balances_sequencer_insert AFTER INSERT ON "balances" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION kestrel_sequencer_accounts()`);
        await queryRunner.query(`CREATE TRIGGER tr_balances_sequencer_update AFTER UPDATE ON "balances" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION kestrel_sequencer_accounts()`);
        await queryRunner.query(`CREATE TRIGGER tr_balances_sequencer_update_old AFTER UPDATE ON "balances" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kestrel_sequencer_accounts_old()`);
        await queryRunner.query(`CREATE TRIGGER tr_balances_sequencer_delete AFTER DELETE ON "balances" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kestrel_sequencer_accounts_old()`);
        await queryRunner.query(`CREATE TRIGGER tr_ledger_entries_sequencer AFTER INSERT ON "ledger_entries" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION kestrel_sequencer_accounts()`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TRIGGER tr_ledger_entries_sequencer ON "ledger_entries"`);
        await queryRunner.query(`CREATE INDEX "ix_ledger_entries_event" ON "ledger_entries" ("event_seq")`);
        await queryRunner.query(`CREATE INDEX "ix_ledger_entries_code" ON "ledger_entries" ("code")`);
        await queryRunner.query(`DROP TRIGGER tr_balances_sequencer_delete ON "balances"`);
        await queryRunner.query(`DROP TRIGGER tr_balances_sequencer_update_old ON "balances"`);
        await queryRunner.query(`DROP TRIGGER tr_balances_sequencer_update ON "balances"`);
        await queryRunner.query(`DROP TRIGGER tr_balances_sequencer_insert ON "balances"`);
        await queryRunner.query(`DROP FUNCTION kestrel_sequencer_accounts_old()`);
        await queryRunner.query(`DROP FUNCTION kestrel_sequencer_accounts()`);
        await queryRunner.query(`CREATE TABLE "engine_snapshots" ("id" BIGSERIAL NOT NULL, "market_id" integer NOT NULL, "journal_version" integer NOT NULL, "book" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9e52665a20cdfa3e3ed269f7a65" PRIMARY KEY ("id"))`);
        await queryRunner.query(`DROP INDEX "public"."ix_orders_client_id"`);
        await queryRunner.query(`DROP INDEX "public"."ix_sequencer_outbox_pending"`);
        await queryRunner.query(`DROP INDEX "public"."uq_sequencer_outbox_command"`);
        await queryRunner.query(`DROP TABLE "sequencer_outbox"`);
        await queryRunner.query(`DROP TABLE "sequencer_projection"`);
        await queryRunner.query(`DROP TABLE "sequencer_snapshots"`);
        await queryRunner.query(`DROP TABLE "sequencer_journal"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_orders_client_id" ON "orders" USING btree ("user_id", "client_order_id") WHERE (client_order_id IS NOT NULL)`);
    }

}
