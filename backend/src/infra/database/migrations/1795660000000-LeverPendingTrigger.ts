import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `lever_positions.trigger_tick_id` and `trigger_reason`: a take profit, stop loss or liquidation
 * that fired on a tick but could not settle then (the treasury short of the profit, 2417, or a
 * failed write). The position settles at that tick's price as soon as it can, and no later tick
 * fires another trigger. Before, the watcher moved past the tick: a take profit the house could
 * not pay was lost, and a later stop loss settled instead.
 */
export class LeverPendingTrigger1795660000000 implements MigrationInterface {
  name = 'LeverPendingTrigger1795660000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "lever_positions" ADD "trigger_tick_id" bigint, ADD "trigger_reason" varchar(12)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "lever_positions" DROP COLUMN "trigger_tick_id", DROP COLUMN "trigger_reason"`);
  }
}
