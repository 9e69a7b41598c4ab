import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A wealth product's `sold` becomes what its orders hold now: a redeemed or matured order gives
 * its principal back to the capacity (releaseCapacity, wealth-products.service.ts). Until now it
 * only rose, so a product counted every purchase it ever had and closed for good once that reached
 * the capacity. Recomputed from the orders still hosting.
 */
export class WealthSoldHeld1795870000000 implements MigrationInterface {
  name = 'WealthSoldHeld1795870000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE wealth_products p SET sold = COALESCE((SELECT SUM(o.amount) FROM wealth_orders o WHERE o.product_id = p.id AND o.status = 'hosting'), 0)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE wealth_products p SET sold = COALESCE((SELECT SUM(o.amount) FROM wealth_orders o WHERE o.product_id = p.id), 0)`);
  }
}
