import { Module } from '@nestjs/common';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { LedgerService } from './ledger.service';
import { TreasuryController } from './treasury.controller';
import { TreasuryService } from './treasury.service';
import { TrialBalanceService } from './trial-balance.service';

@Module({
  controllers: [TreasuryController],
  providers: [EventStoreService, LedgerService, TrialBalanceService, TreasuryService],
  exports: [EventStoreService, LedgerService, TrialBalanceService],
})
export class LedgerModule {}
