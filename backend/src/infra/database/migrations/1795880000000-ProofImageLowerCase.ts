import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A loan repayment's transfer image is kept as its upload id in lower case, as a deposit's proof
 * (a uuid) compares: the same image named in another letter case is the same proof (2303).
 */
export class ProofImageLowerCase1795880000000 implements MigrationInterface {
  name = 'ProofImageLowerCase1795880000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "loan_repayments" SET "image" = lower("image") WHERE "image" <> lower("image")`);
  }

  public async down(): Promise<void> {
    // The letter case sent is not kept: nothing to undo.
  }
}
