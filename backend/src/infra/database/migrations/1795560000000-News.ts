import { MigrationInterface, QueryRunner } from "typeorm";

/** The news CMS (categories, articles with one row per language, banners) and its three standing categories. */
export class News1795560000000 implements MigrationInterface {
    name = 'News1795560000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "news_categories" ("id" SERIAL NOT NULL, "code" character varying(32) NOT NULL, "names" jsonb NOT NULL DEFAULT '{}', "sort" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_20eed6c3ae534e7721fa44874a3" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_news_categories_code" ON "news_categories"  ("code") `);
        await queryRunner.query(`CREATE TABLE "news_articles" ("id" SERIAL NOT NULL, "category_id" integer NOT NULL, "cover_image_id" uuid, "published_at" TIMESTAMP WITH TIME ZONE NOT NULL, "pinned" boolean NOT NULL DEFAULT false, "recommended" boolean NOT NULL DEFAULT false, "deleted" boolean NOT NULL DEFAULT false, "created_by" character varying(40) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ca1b67b1b6b2c382317bbd769dc" PRIMARY KEY ("id"))`);
        await queryRunner.query(`CREATE INDEX "ix_news_articles_list" ON "news_articles"  ("category_id", "pinned", "published_at") `);
        await queryRunner.query(`CREATE TABLE "news_translations" ("article_id" integer NOT NULL, "lang" character varying(4) NOT NULL, "title" character varying(200) NOT NULL, "summary" character varying(500) NOT NULL DEFAULT '', "body_md" text NOT NULL, "body_html" text NOT NULL, CONSTRAINT "PK_6ebfcd59f11c035e3bdf5c80047" PRIMARY KEY ("article_id", "lang"))`);
        await queryRunner.query(`CREATE TABLE "news_banners" ("id" SERIAL NOT NULL, "image_id" uuid NOT NULL, "titles" jsonb NOT NULL DEFAULT '{}', "link_type" character varying(8) NOT NULL DEFAULT 'none', "link" character varying(200) NOT NULL DEFAULT '', "sort" integer NOT NULL DEFAULT '0', "starts_at" TIMESTAMP WITH TIME ZONE, "ends_at" TIMESTAMP WITH TIME ZONE, "deleted" boolean NOT NULL DEFAULT false, "created_by" character varying(40) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9cdf2ee4092796de8e416a49417" PRIMARY KEY ("id"))`);
        // The categories the app asks for by code: the notices tab, the news list, the help centre.
        await queryRunner.query(`INSERT INTO "news_categories" ("code", "names", "sort") VALUES ($1, $2, $3)`, ["announcement", "{\"en\": \"Announcements\", \"zh\": \"公告\", \"hk\": \"公告\", \"jp\": \"お知らせ\", \"kr\": \"공지사항\", \"ty\": \"ประกาศ\", \"py\": \"Anúncios\"}", 1]);
        await queryRunner.query(`INSERT INTO "news_categories" ("code", "names", "sort") VALUES ($1, $2, $3)`, ["news", "{\"en\": \"News\", \"zh\": \"资讯\", \"hk\": \"資訊\", \"jp\": \"ニュース\", \"kr\": \"뉴스\", \"ty\": \"ข่าวสาร\", \"py\": \"Notícias\"}", 2]);
        await queryRunner.query(`INSERT INTO "news_categories" ("code", "names", "sort") VALUES ($1, $2, $3)`, ["faq", "{\"en\": \"FAQ\", \"zh\": \"常见问题\", \"hk\": \"常見問題\", \"jp\": \"よくある質問\", \"kr\": \"자주 묻는 질문\", \"ty\": \"คำถามที่พบบ่อย\", \"py\": \"Perguntas frequentes\"}", 3]);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE "news_banners"`);
        await queryRunner.query(`DROP TABLE "news_translations"`);
        await queryRunner.query(`DROP INDEX "public"."ix_news_articles_list"`);
        await queryRunner.query(`DROP TABLE "news_articles"`);
        await queryRunner.query(`DROP INDEX "public"."uq_news_categories_code"`);
        await queryRunner.query(`DROP TABLE "news_categories"`);
    }

}
