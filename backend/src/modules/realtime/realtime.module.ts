import { Module } from '@nestjs/common';
import { CoinTradeModule } from '../coin-trade/coin-trade.module';
import { EngineModule } from '../engine/engine.module';
import { LeverModule } from '../lever/lever.module';
import { MarketModule } from '../market/market.module';
import { MarketFeedService } from './market-feed.service';
import { RealtimeGateway } from './realtime.gateway';

@Module({ imports: [EngineModule, MarketModule, CoinTradeModule, LeverModule], providers: [MarketFeedService, RealtimeGateway] })
export class RealtimeModule {}
