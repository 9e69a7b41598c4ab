import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { MarketModule } from '../market/market.module';
import { MarketFeedService } from './market-feed.service';
import { RealtimeGateway } from './realtime.gateway';

@Module({ imports: [EngineModule, MarketModule], providers: [MarketFeedService, RealtimeGateway] })
export class RealtimeModule {}
