import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { IeoAdminService } from './ieo-admin.service';
import { IeoAllocationService } from './ieo-allocation.service';
import { IeoDemoService } from './ieo-demo.service';
import { NewcoinAdminController, NewcoinController } from './newcoin.controller';
import { NewcoinService } from './newcoin.service';

/** New-coin subscriptions (IEO): projects, subscriptions, the allocation job, the new coin's market. */
@Module({
  imports: [LedgerModule, EngineModule],
  controllers: [NewcoinController, NewcoinAdminController],
  providers: [NewcoinService, IeoAllocationService, IeoAdminService, IeoDemoService],
  exports: [IeoAllocationService],
})
export class NewcoinModule {}
