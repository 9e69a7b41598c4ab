import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger of a spot trade stored once, in the trade's row (docs/architecture.md, "The ledger of
 * a spot trade"). A trade's posting has up to six trade-account legs (each side's 600 from frozen,
 * 602 and 601 on the currency it receives); they were six `ledger_entries` rows (~4.7 of the ~6
 * rows an order wrote). Now the projector writes, with the trade, what the legs do not repeat:
 * each side's two accounts' balances after the trade, the market's two currencies as they were
 * (so a later change to the market cannot rewrite the ledger) and the posting's place in the ledger's order
 * (`ledger_id`: ids step by 8, so a trade's legs are `ledger_id + 0…5`, between the entries before
 * and after it). The view `ledger` is the whole ledger: `ledger_entries` and those legs, with the
 * same columns, codes, amounts, balances after and ids as the rows they replace. Trades projected
 * before this migration keep their legs in `ledger_entries` (their `ledger_id` is null).
 *
 * Trades now carry ledger legs, so they get the trade accounts' guard: only the projector inserts
 * them, and nobody updates or deletes them. Their unused time index goes (three indexes come).
 */
/** Each side's two accounts (the currency it pays, the one it receives) after the trade. */
const BALANCES_AFTER = ['maker', 'taker'].flatMap((side) =>
  ['pay_available_after', 'pay_frozen_after', 'receive_available_after', 'receive_frozen_after'].map((c) => `${side}_${c}`),
);

export class CompactTradeLedger1795700000000 implements MigrationInterface {
  name = 'CompactTradeLedger1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const balances = BALANCES_AFTER.map((c) => `ADD "${c}" numeric(36,18)`).join(', ');
    await queryRunner.query(`ALTER TABLE "trades" ADD "ledger_id" bigint, ADD "event_seq" bigint, ADD "base_currency_id" integer, ADD "quote_currency_id" integer, ${balances}`);
    await queryRunner.query(`CREATE INDEX "ix_trades_ledger" ON "trades" ("ledger_id")`);
    await queryRunner.query(`CREATE INDEX "ix_trades_maker_ledger" ON "trades" ("maker_user_id", "ledger_id")`);
    // No query reads trades by time (a market's trades are read newest first by the primary key: trade ids grow with time).
    await queryRunner.query(`DROP INDEX "public"."ix_trades_market_time"`);
    await queryRunner.query(`CREATE INDEX "ix_trades_taker_ledger" ON "trades" ("taker_user_id", "ledger_id")`);
    await queryRunner.query(`ALTER SEQUENCE "ledger_entries_id_seq" INCREMENT BY 8`);
    await queryRunner.query(`CREATE VIEW "ledger" AS
      SELECT id, event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo, created_at
      FROM ledger_entries
      UNION ALL ${legs('maker')}
      UNION ALL ${legs('taker')}`);
    await queryRunner.query(`CREATE FUNCTION kestrel_trades_writer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          RAISE EXCEPTION 'trades is append-only' USING ERRCODE = 'P0001';
        END IF;
        IF COALESCE(current_setting('kestrel.writer', true), '') <> 'projector' THEN
          RAISE EXCEPTION 'trades are written only by the sequencer''s projector' USING ERRCODE = 'P0001';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER tr_trades_writer BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "trades" FOR EACH STATEMENT EXECUTE FUNCTION kestrel_trades_writer()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER tr_trades_writer ON "trades"`);
    await queryRunner.query(`DROP FUNCTION kestrel_trades_writer()`);
    await queryRunner.query(`DROP VIEW "ledger"`);
    await queryRunner.query(`ALTER SEQUENCE "ledger_entries_id_seq" INCREMENT BY 1`);
    await queryRunner.query(`CREATE INDEX "ix_trades_market_time" ON "trades" ("market_id", "executed_at")`);
    await queryRunner.query(`DROP INDEX "public"."ix_trades_taker_ledger"`);
    await queryRunner.query(`DROP INDEX "public"."ix_trades_maker_ledger"`);
    await queryRunner.query(`DROP INDEX "public"."ix_trades_ledger"`);
    const columns = ['ledger_id', 'event_seq', 'base_currency_id', 'quote_currency_id', ...BALANCES_AFTER];
    await queryRunner.query(`ALTER TABLE "trades" ${columns.map((c) => `DROP COLUMN "${c}"`).join(', ')}`);
  }
}

/**
 * One side's legs of the trades projected with their ledger (as the sequencer posts them, in its
 * order): 600 from the frozen currency it pays (`ledger_id + 0` for the buyer, `+ 2` for the seller),
 * 602 on the currency it receives (`+ 1` / `+ 3`), and its fee, 601, on that same account when
 * there is one (`+ 4` / `+ 5`). The buyer pays quote and receives base. Each leg's balance after is
 * its account's after the trade, but the 602 leg's available, which its fee has not yet left. The
 * owner is the trade's own column, so `owner_id = $n` reaches the side's index. With
 * `tradeLedgerId`, the trade's `ledger_id` follows the leg's columns as `trade_ledger_id` (the side
 * views of migration TradeLegViews).
 */
export function legs(side: 'maker' | 'taker', tradeLedgerId = false): string {
  const buys = `t.taker_side ${side === 'taker' ? '=' : '<>'} 'buy'`;
  const pick = (ifBuyer: string, ifSeller: string) => `CASE WHEN ${buys} THEN ${ifBuyer} ELSE ${ifSeller} END`;
  const fee = `t.${side}_fee`;
  const money = (v: string) => `(${v})::numeric(36,18)`;
  return `SELECT t.ledger_id + l.n AS id, t.event_seq, 'user'::varchar(16) AS owner_type, t.${side}_user_id AS owner_id, 'coin'::varchar(16) AS account_type,
      l.currency_id, l.code, l.available_delta, l.frozen_delta, l.available_after, l.frozen_after,
      'trade'::varchar(32) AS ref_type, (t.market_id || ':' || t.trade_id)::varchar(64) AS ref_id, ''::varchar(200) AS memo, t.executed_at AS created_at${
        tradeLedgerId ? ', t.ledger_id AS trade_ledger_id' : ''
      }
    FROM trades t
    CROSS JOIN LATERAL (VALUES
      (${pick('0', '2')}, 600, ${pick('t.quote_currency_id', 't.base_currency_id')}, ${money('0')}, ${money(`-${pick('t.quote_quantity', 't.quantity')}`)},
        ${money(`t.${side}_pay_available_after`)}, ${money(`t.${side}_pay_frozen_after`)}),
      (${pick('1', '3')}, 602, ${pick('t.base_currency_id', 't.quote_currency_id')}, ${money(pick('t.quantity', 't.quote_quantity'))}, ${money('0')},
        ${money(`t.${side}_receive_available_after + ${fee}`)}, ${money(`t.${side}_receive_frozen_after`)}),
      (${pick('4', '5')}, 601, ${pick('t.base_currency_id', 't.quote_currency_id')}, ${money(`-${fee}`)}, ${money('0')},
        ${money(`t.${side}_receive_available_after`)}, ${money(`t.${side}_receive_frozen_after`)})
    ) l(n, code, currency_id, available_delta, frozen_delta, available_after, frozen_after)
    WHERE t.ledger_id IS NOT NULL AND (l.code <> 601 OR ${fee} <> 0)`;
}
