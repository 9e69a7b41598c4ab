import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Images in an article's body: each translation keeps the uploads its images show, so
 * `news/image/<id>` serves them (as it serves covers and banners) while the article is not deleted.
 * Bodies written before kept any image source; those from the news route are taken over here.
 */
export class NewsBodyImages1795920000000 implements MigrationInterface {
  name = 'NewsBodyImages1795920000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '2s'`);
    await queryRunner.query(`ALTER TABLE "news_translations" ADD "image_ids" uuid array NOT NULL DEFAULT '{}'`);
    await queryRunner.query(
      `UPDATE "news_translations" t SET "image_ids" = ARRAY(
         SELECT DISTINCT lower(m[1])::uuid FROM regexp_matches(t.body_html, '<img src="/api/news/image/([0-9a-fA-F-]{36})"', 'g') AS m)
       WHERE t.body_html LIKE '%/api/news/image/%'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "news_translations" DROP COLUMN "image_ids"`);
  }
}
