import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { MarketFavoritesController } from './market-favorites.controller';
import { MarketFavoritesService } from './market-favorites.service';

/** Favourite markets per user (market/favorites). */
@Module({
  imports: [EngineModule],
  controllers: [MarketFavoritesController],
  providers: [MarketFavoritesService],
})
export class MarketFavoritesModule {}
