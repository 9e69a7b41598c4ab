import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each upload keeps the SHA-256 of its stored (cleaned) bytes, indexed: a payment proof is refused
 * when the same picture, uploaded again as a new file, already backs another report (a deposit
 * report, a loan repayment by transfer). Uploads from before this have none (they are matched by id
 * only, as before).
 */
export class UploadContentHash1795900000000 implements MigrationInterface {
  name = 'UploadContentHash1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`ALTER TABLE "uploads" ADD COLUMN "sha256" bytea`);
    await queryRunner.query(`CREATE INDEX "ix_uploads_sha256" ON "uploads" ("sha256") WHERE "sha256" IS NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_uploads_sha256"`);
    await queryRunner.query(`ALTER TABLE "uploads" DROP COLUMN "sha256"`);
  }
}
