import { MigrationInterface, QueryRunner } from 'typeorm';
import { legs } from './1795700000000-CompactTradeLedger';
import { COLUMNS } from './1795720000000-TradeLegViews';
import { orderPostings } from './1795730000000-OrderFreezeLedger';

/**
 * Every column holding an account's balance becomes unbounded `numeric` (was numeric(36,18)): the
 * balances themselves (`balances.available`, `frozen`) and the ledger's balances after each
 * posting (`ledger_entries.available_after`, `frozen_after`; a spot trade's, in its row,
 * `trades.{maker,taker}_{pay,receive}_{available,frozen}_after`; a spot order's freeze and
 * release, in its row, `orders.{freeze,release}_{available,frozen}_after`). Each posting's amount is
 * below 10^18 whole units (18 integer digits, as the sequencer and the DTOs check them), but a
 * balance is a sum of them: one that reached 10^18 (a user's trade account after two large
 * credits, or the `external` account at minus the money that came in) could not be written, the
 * projector failed on it at every replay of the journal and the projection stopped for good. The
 * amounts (deltas, quantities, fees) stay numeric(36,18).
 *
 * Removing the typmod needs no table rewrite (`balances` is read once, to test its CHECK again),
 * but the views over these columns (`ledger` and the four it is built from) fix their column
 * types, so they are dropped and made again with the same definitions; a trade's legs now show its
 * balances after as unbounded numeric (they were cast to numeric(36,18)). A value keeps the scale
 * it was written with (the column no longer pads it to 18 decimals): every reader parses it
 * (`units`, `moneyString`). `down` restores the bounds, and fails (numeric field overflow, nothing
 * changed) if a balance no longer fits them.
 */
const BALANCE_COLUMNS: ReadonlyArray<[string, string[]]> = [
  ['balances', ['available', 'frozen']],
  ['ledger_entries', ['available_after', 'frozen_after']],
  ['trades', ['maker', 'taker'].flatMap((side) => ['pay_available_after', 'pay_frozen_after', 'receive_available_after', 'receive_frozen_after'].map((c) => `${side}_${c}`))],
  ['orders', ['freeze', 'release'].flatMap((k) => [`${k}_available_after`, `${k}_frozen_after`])],
];

/** The views over those columns, each after the ones it reads. */
const VIEWS = ['trade_legs_maker', 'trade_legs_taker', 'order_freezes', 'order_releases', 'ledger'];

/** A casted balance after in CompactTradeLedger's legs: `(t.<side>_…_after)` or `(t.<side>_receive_available_after + t.<side>_fee)`. */
const BOUNDED_AFTER = /\((t\.(?:maker|taker)_\w+_after(?: \+ t\.(?:maker|taker)_fee)?)\)::numeric\(36,18\)/g;

/** One side's trade legs (the view TradeLegViews made) with the balances after unbounded: the same definition, but for those casts. */
function unboundedLegs(side: 'maker' | 'taker'): string {
  const bounded = legs(side, true);
  // Two balances after on each of the three legs (600, 602, 601): six casts, or the definition is not the one this was written for.
  const found = bounded.match(BOUNDED_AFTER)?.length ?? 0;
  if (found !== 6) throw new Error(`BalancesUnbounded: ${found} balances after in the ${side} legs' definition, expected 6`);
  return bounded.replace(BOUNDED_AFTER, '($1)::numeric');
}

/** The view definitions, by name: trade legs as `tradeLegs` gives them, the others as OrderFreezeLedger made them. */
function views(tradeLegs: (side: 'maker' | 'taker') => string): Record<string, string> {
  return {
    trade_legs_maker: tradeLegs('maker'),
    trade_legs_taker: tradeLegs('taker'),
    order_freezes: orderPostings('freeze'),
    order_releases: orderPostings('release'),
    ledger: `SELECT ${COLUMNS} FROM ledger_entries
      UNION ALL SELECT ${COLUMNS} FROM trade_legs_maker UNION ALL SELECT ${COLUMNS} FROM trade_legs_taker
      UNION ALL SELECT ${COLUMNS} FROM order_freezes
      UNION ALL SELECT ${COLUMNS} FROM order_releases`,
  };
}

export class BalancesUnbounded1795830000000 implements MigrationInterface {
  name = 'BalancesUnbounded1795830000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await this.retype(queryRunner, 'numeric', views(unboundedLegs));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await this.retype(queryRunner, 'numeric(36,18)', views((side) => legs(side, true)));
  }

  /** The views dropped, the balance columns made `type`, the views made again from `definitions`. */
  private async retype(queryRunner: QueryRunner, type: string, definitions: Record<string, string>): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    for (const v of [...VIEWS].reverse()) await queryRunner.query(`DROP VIEW "${v}"`);
    for (const [table, columns] of BALANCE_COLUMNS)
      await queryRunner.query(`ALTER TABLE "${table}" ${columns.map((c) => `ALTER COLUMN "${c}" TYPE ${type}`).join(', ')}`);
    for (const v of VIEWS) await queryRunner.query(`CREATE VIEW "${v}" AS ${definitions[v]}`);
  }
}
