import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { CoinTradeController } from './coin-trade.controller';
import { CoinTradeService } from './coin-trade.service';

@Module({ imports: [EngineModule], controllers: [CoinTradeController], providers: [CoinTradeService], exports: [CoinTradeService] })
export class CoinTradeModule {}
