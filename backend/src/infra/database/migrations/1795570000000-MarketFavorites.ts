import { MigrationInterface, QueryRunner } from "typeorm";

/** The Markets tab's favourite markets, one row per user and market. */
export class MarketFavorites1795570000000 implements MigrationInterface {
    name = 'MarketFavorites1795570000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "market_favorites" ("user_id" integer NOT NULL, "market_id" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_market_favorites" PRIMARY KEY ("user_id", "market_id"))`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE "market_favorites"`);
    }

}
