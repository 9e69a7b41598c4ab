import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `lever_positions.tpsl_tick_id`: the market's newest recorded tick when a position's take-profit
 * and stop-loss were last changed. Only later ticks trigger them, so a level set now cannot fire
 * on an older tick the watcher has not reached yet (docs/api.md, "Contracts"). Existing rows stay null: their
 * levels count from the open tick, as before.
 */
export class LeverTpSlTick1795630000000 implements MigrationInterface {
  name = 'LeverTpSlTick1795630000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "lever_positions" ADD "tpsl_tick_id" bigint`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "lever_positions" DROP COLUMN "tpsl_tick_id"`);
  }
}
