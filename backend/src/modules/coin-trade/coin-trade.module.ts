import { Module } from '@nestjs/common';
import { FundPasswordGate } from '../../infra/auth/fund-password-gate';
import { EngineModule } from '../engine/engine.module';
import { CoinTradeController } from './coin-trade.controller';
import { CoinTradeService } from './coin-trade.service';
import { OrderChannel } from './order-channel';
import { OrderEntry } from './order-entry';
import { OrderSocket } from './order-socket';

@Module({
  imports: [EngineModule],
  controllers: [CoinTradeController],
  providers: [FundPasswordGate, CoinTradeService, OrderEntry, OrderChannel, OrderSocket],
  exports: [CoinTradeService, OrderEntry, OrderChannel],
})
export class CoinTradeModule {}
