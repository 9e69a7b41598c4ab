import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger's account index on integers only: (owner_id, currency_id, id). Every reader filters an
 * owner's rows by `owner_type` and `owner_id` (and usually `currency_id`); the type's few values
 * (user, system) are checked on the rows the index finds. A varchar first column made each insert's
 * descent compare collated text: the projector's ledger insert (61 % of its transaction time at the
 * closed loop's capacity) spent ~4.5 µs per row in this index, ~2.7 µs with the integer key
 * (docs/performance.md, "Seventh sitting").
 */
export class LedgerAccountIndex1795600000000 implements MigrationInterface {
  name = 'LedgerAccountIndex1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_ledger_entries_account"`);
    await queryRunner.query(`CREATE INDEX "ix_ledger_entries_account" ON "ledger_entries" ("owner_id", "currency_id", "id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_ledger_entries_account"`);
    await queryRunner.query(`CREATE INDEX "ix_ledger_entries_account" ON "ledger_entries" ("owner_type", "owner_id", "currency_id", "id") `);
  }
}
