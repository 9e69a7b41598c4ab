import { Module } from '@nestjs/common';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { LedgerService } from './ledger.service';
import { TrialBalanceService } from './trial-balance.service';

@Module({
  providers: [EventStoreService, LedgerService, TrialBalanceService],
  exports: [EventStoreService, LedgerService, TrialBalanceService],
})
export class LedgerModule {}
