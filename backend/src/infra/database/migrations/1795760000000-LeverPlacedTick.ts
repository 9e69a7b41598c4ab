import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `lever_positions.placed_tick_id`: a limit order's market's newest recorded tick when it was
 * placed; only later ticks fill it. Before, a tick counted when its time was not before the order's
 * creation, comparing the sampling process's clock with the database's: with the database behind,
 * a tick recorded (and pushed) before the order could fill it at that earlier price. Orders already
 * pending keep the time comparison (null). Nullable, no default: no table rewrite.
 */
export class LeverPlacedTick1795760000000 implements MigrationInterface {
  name = 'LeverPlacedTick1795760000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`ALTER TABLE "lever_positions" ADD "placed_tick_id" bigint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "lever_positions" DROP COLUMN "placed_tick_id"`);
  }
}
