import { Module } from '@nestjs/common';
import { FundPasswordGate } from '../../infra/auth/fund-password-gate';
import { EngineModule } from '../engine/engine.module';
import { MarketModule } from '../market/market.module';
import { LedgerModule } from '../ledger/ledger.module';
import { UserModule } from '../user/user.module';
import { MicrotradeController } from './microtrade.controller';
import { MicrotradeService } from './microtrade.service';
import { OptionDeliveryService } from './option-delivery.service';

@Module({
  imports: [LedgerModule, EngineModule, UserModule, MarketModule],
  controllers: [MicrotradeController],
  providers: [FundPasswordGate, MicrotradeService, OptionDeliveryService],
  exports: [OptionDeliveryService],
})
export class MicrotradeModule {}
