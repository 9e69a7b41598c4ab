import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { MarketController } from './market.controller';
import { MarketDataService } from './market-data.service';
import { MarkPriceService } from './mark-price.service';

@Module({
  imports: [EngineModule],
  controllers: [MarketController],
  providers: [MarketDataService, MarkPriceService],
  exports: [MarketDataService, MarkPriceService],
})
export class MarketModule {}
