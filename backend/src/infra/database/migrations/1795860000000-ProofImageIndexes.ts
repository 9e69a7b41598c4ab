import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A payment proof (a deposit report's image, a loan repayment's transfer image) backs one report
 * only (UploadService.claimProof, 2303): these indexes answer "is this image some report's proof
 * already" without reading the whole tables.
 */
export class ProofImageIndexes1795860000000 implements MigrationInterface {
  name = 'ProofImageIndexes1795860000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_deposits_proof" ON "deposits" ("proof_upload_id")`);
    await queryRunner.query(`CREATE INDEX "ix_loan_repayments_image" ON "loan_repayments" ("image") WHERE image IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_loan_repayments_image"`);
    await queryRunner.query(`DROP INDEX "ix_deposits_proof"`);
  }
}
