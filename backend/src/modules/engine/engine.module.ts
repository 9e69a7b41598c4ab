import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { LedgerModule } from '../ledger/ledger.module';
import { EngineBus } from './engine-bus';
import { EngineHost } from './engine-host.service';
import { MarketRegistry } from './market-registry.service';
import { SettledReadsInterceptor } from './settled-reads.interceptor';
import { SettlementService } from './settlement.service';

@Module({
  imports: [LedgerModule],
  providers: [MarketRegistry, EngineBus, SettlementService, EngineHost, { provide: APP_INTERCEPTOR, useClass: SettledReadsInterceptor }],
  exports: [MarketRegistry, EngineBus, EngineHost],
})
export class EngineModule {}
