import { MigrationInterface, QueryRunner } from 'typeorm';
import { legs } from './1795700000000-CompactTradeLedger';

/**
 * A trader's page of the ledger without sorting all of their trades (docs/architecture.md, "The
 * ledger of a spot trade"). The view `ledger` computes a trade leg's id (`ledger_id + n`), so a
 * page ordered by it sorted every leg of every trade of the trader: 2.3 s for the first page of a
 * trader with 300,000 trades. Each side's legs get a view of their own, with the trade's
 * `trade_ledger_id` beside the leg's columns: `owner_id = $n ORDER BY trade_ledger_id DESC, id DESC
 * LIMIT k` walks the side's index `(…_user_id, ledger_id)` newest first and stops after k legs.
 * `ledger` is built from the two views (one definition of the legs: CompactTradeLedger's); its rows are the same.
 */
export const COLUMNS =
  'id, event_seq, owner_type, owner_id, account_type, currency_id, code, available_delta, frozen_delta, available_after, frozen_after, ref_type, ref_id, memo, created_at';

export class TradeLegViews1795720000000 implements MigrationInterface {
  name = 'TradeLegViews1795720000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE VIEW "trade_legs_maker" AS ${legs('maker', true)}`);
    await queryRunner.query(`CREATE VIEW "trade_legs_taker" AS ${legs('taker', true)}`);
    await queryRunner.query(`CREATE OR REPLACE VIEW "ledger" AS
      SELECT ${COLUMNS} FROM ledger_entries
      UNION ALL SELECT ${COLUMNS} FROM trade_legs_maker
      UNION ALL SELECT ${COLUMNS} FROM trade_legs_taker`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE OR REPLACE VIEW "ledger" AS
      SELECT ${COLUMNS} FROM ledger_entries
      UNION ALL ${legs('maker')}
      UNION ALL ${legs('taker')}`);
    await queryRunner.query(`DROP VIEW "trade_legs_taker"`);
    await queryRunner.query(`DROP VIEW "trade_legs_maker"`);
  }
}
