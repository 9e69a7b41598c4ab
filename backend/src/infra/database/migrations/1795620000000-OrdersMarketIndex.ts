import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops `ix_orders_market_status` (market_id, status): no query reads orders by market (an open
 * order's book is the sequencer's memory, a user's orders are found through `ix_orders_user_status`),
 * and every order row the projector inserts, and every status change it writes, paid for an entry
 * in it (docs/performance.md, "Tenth sitting").
 */
export class OrdersMarketIndex1795620000000 implements MigrationInterface {
  name = 'OrdersMarketIndex1795620000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_orders_market_status"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_orders_market_status" ON "orders" ("market_id", "status") `);
  }
}
