import { MigrationInterface, QueryRunner } from 'typeorm';
import { COLUMNS } from './1795720000000-TradeLegViews';

/**
 * A spot order's freeze and release stored once, in the order's row (docs/architecture.md, "The
 * ledger of a spot order"), as a trade's legs are in the trade's (CompactTradeLedger). Placing an
 * order froze its funds with a `ledger_entries` row (901) and its leaving the book released the rest
 * with another (902): ~1.4 of the ~1.5 ledger rows an order still wrote. The projector now writes,
 * with the order, what those entries do not repeat: the amount frozen, each posting's place in the
 * ledger's order (`freeze_ledger_id`, `release_ledger_id`) and journal batch, and the account's
 * balances after it. The amount released is what was frozen less what the fills took from it (a
 * buy pays quote from frozen, a sell base): `frozen_amount - filled_quote` or `- filled_qty`.
 *
 * Views `order_freezes` and `order_releases` show them as the rows they replace (same ids, codes,
 * amounts, balances after); `ledger` is `ledger_entries`, the trades' legs and those two. Orders
 * projected before this migration keep their entries in `ledger_entries` (their ledger ids are
 * null). For a trader's page of the wallet log: a freeze's ledger id grows with its order's id (both
 * are given in the sequencer's order), so `order_freezes` also shows the order's id and status, and a
 * trader's newest freezes are the newest orders: through `orders (user_id, status, id)` one status at
 * a time, or, for one currency, through `(user_id, frozen_currency_id, id)`. Releases come in the
 * order orders leave the book and have their partial index `(user_id, release_ledger_id)`.
 *
 * Orders now carry ledger postings, so they get the trade accounts' guard: only the projector
 * inserts or updates them, and nobody deletes them. The projection's own row keeps the highest
 * ledger id it gave (`ledger_id`), the proof's watermark (a release's id is not the highest of its order's).
 */
/** The amount still frozen when an order left the book: frozen less what its fills paid from it. */
const RELEASED = `(o.frozen_amount - CASE WHEN o.side = 'buy' THEN o.filled_quote ELSE o.filled_qty END)`;

/**
 * One kind of an order's postings as ledger lines: `freeze` (901, when placed; with the order's
 * `order_id` and `order_status` after the ledger's columns) or `release` (902, when it left the
 * book with funds still frozen).
 */
export function orderPostings(kind: 'freeze' | 'release'): string {
  const freeze = kind === 'freeze';
  const money = (v: string) => `(${v})::numeric(36,18)`;
  return `SELECT o.${kind}_ledger_id AS id, o.${kind}_seq AS event_seq, 'user'::varchar(16) AS owner_type, o.user_id AS owner_id, 'coin'::varchar(16) AS account_type,
      o.frozen_currency_id AS currency_id, ${freeze ? 901 : 902} AS code,
      ${money(freeze ? '-o.frozen_amount' : RELEASED)} AS available_delta, ${money(freeze ? 'o.frozen_amount' : `-${RELEASED}`)} AS frozen_delta,
      o.${kind}_available_after AS available_after, o.${kind}_frozen_after AS frozen_after,
      'order'::varchar(32) AS ref_type, o.id::varchar(64) AS ref_id, ''::varchar(200) AS memo, o.${freeze ? 'created_at' : 'updated_at'} AS created_at${
        freeze ? ', o.id AS order_id, o.status AS order_status' : ''
      }
    FROM orders o WHERE o.${kind}_ledger_id IS NOT NULL`;
}

const NEW_COLUMNS = [
  ['frozen_amount', 'numeric(36,18)'],
  ...['freeze', 'release'].flatMap((k) => [
    [`${k}_ledger_id`, 'bigint'],
    [`${k}_seq`, 'bigint'],
    [`${k}_available_after`, 'numeric(36,18)'],
    [`${k}_frozen_after`, 'numeric(36,18)'],
  ]),
];

const TRADE_LEGS = `SELECT ${COLUMNS} FROM trade_legs_maker UNION ALL SELECT ${COLUMNS} FROM trade_legs_taker`;

export class OrderFreezeLedger1795730000000 implements MigrationInterface {
  name = 'OrderFreezeLedger1795730000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ${NEW_COLUMNS.map(([c, t]) => `ADD "${c}" ${t}`).join(', ')}`);
    await queryRunner.query(`CREATE INDEX "ix_orders_freeze_currency" ON "orders" ("user_id", "frozen_currency_id", "id") WHERE freeze_ledger_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX "ix_orders_release_ledger" ON "orders" ("user_id", "release_ledger_id") WHERE release_ledger_id IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "sequencer_projection" ADD "ledger_id" bigint`);
    await queryRunner.query(`CREATE VIEW "order_freezes" AS ${orderPostings('freeze')}`);
    await queryRunner.query(`CREATE VIEW "order_releases" AS ${orderPostings('release')}`);
    await queryRunner.query(`CREATE OR REPLACE VIEW "ledger" AS
      SELECT ${COLUMNS} FROM ledger_entries
      UNION ALL ${TRADE_LEGS}
      UNION ALL SELECT ${COLUMNS} FROM order_freezes
      UNION ALL SELECT ${COLUMNS} FROM order_releases`);
    await queryRunner.query(`CREATE FUNCTION kestrel_orders_writer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP NOT IN ('INSERT', 'UPDATE') THEN
          RAISE EXCEPTION 'orders are never deleted' USING ERRCODE = 'P0001';
        END IF;
        IF COALESCE(current_setting('kestrel.writer', true), '') <> 'projector' THEN
          RAISE EXCEPTION 'orders are written only by the sequencer''s projector' USING ERRCODE = 'P0001';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER tr_orders_writer BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "orders" FOR EACH STATEMENT EXECUTE FUNCTION kestrel_orders_writer()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER tr_orders_writer ON "orders"`);
    await queryRunner.query(`DROP FUNCTION kestrel_orders_writer()`);
    // The postings move back into ledger_entries (ids kept) before their columns go.
    await queryRunner.query(`SET LOCAL kestrel.writer = 'projector'`);
    await queryRunner.query(`INSERT INTO ledger_entries (${COLUMNS}) SELECT ${COLUMNS} FROM order_freezes UNION ALL SELECT ${COLUMNS} FROM order_releases`);
    await queryRunner.query(`CREATE OR REPLACE VIEW "ledger" AS SELECT ${COLUMNS} FROM ledger_entries UNION ALL ${TRADE_LEGS}`);
    await queryRunner.query(`DROP VIEW "order_releases"`);
    await queryRunner.query(`DROP VIEW "order_freezes"`);
    await queryRunner.query(`ALTER TABLE "sequencer_projection" DROP COLUMN "ledger_id"`);
    await queryRunner.query(`DROP INDEX "public"."ix_orders_release_ledger"`);
    await queryRunner.query(`DROP INDEX "public"."ix_orders_freeze_currency"`);
    await queryRunner.query(`ALTER TABLE "orders" ${NEW_COLUMNS.map(([c]) => `DROP COLUMN "${c}"`).join(', ')}`);
  }
}
