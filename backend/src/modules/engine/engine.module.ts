import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { EngineBus } from './engine-bus';
import { EngineHost } from './engine-host.service';
import { MarketRegistry } from './market-registry.service';
import { SettlementService } from './settlement.service';

@Module({
  imports: [LedgerModule],
  providers: [MarketRegistry, EngineBus, SettlementService, EngineHost],
  exports: [MarketRegistry, EngineBus, EngineHost],
})
export class EngineModule {}
