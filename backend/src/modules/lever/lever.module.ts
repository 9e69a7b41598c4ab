import { Module } from '@nestjs/common';
import { FundPasswordGate } from '../../infra/auth/fund-password-gate';
import { EngineModule } from '../engine/engine.module';
import { MarketModule } from '../market/market.module';
import { LedgerModule } from '../ledger/ledger.module';
import { LeverAuditController, LeverAuditService } from './lever-audit';
import { LeverWatchService } from './lever-watch.service';
import { LeverController } from './lever.controller';
import { LeverService } from './lever.service';

@Module({
  imports: [LedgerModule, EngineModule, MarketModule],
  controllers: [LeverController, LeverAuditController],
  providers: [FundPasswordGate, LeverService, LeverWatchService, LeverAuditService],
  exports: [LeverService, LeverWatchService],
})
export class LeverModule {}
