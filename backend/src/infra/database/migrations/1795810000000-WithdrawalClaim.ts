import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `withdrawals.claim`, `claimed_until`: the run finishing a `submitting` withdrawal (the request that
 * made it, a retry, the sweep) claims it with a token and ends it only under that token. Before,
 * runs raced: the sweep's send of the freeze was applied after the request, refused by the lag
 * bound, had removed the row, leaving the amount frozen with no withdrawal. A row lock held across
 * the send (the first fix) held a pooled connection per withdrawal in flight.
 */
export class WithdrawalClaim1795810000000 implements MigrationInterface {
  name = 'WithdrawalClaim1795810000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "withdrawals" ADD "claim" uuid, ADD "claimed_until" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "withdrawals" DROP COLUMN "claimed_until", DROP COLUMN "claim"`);
  }
}
