import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { ProofJobsService } from './proof-jobs.service';
import { ProofAdminController, ProofController } from './proof.controller';
import { ProofService } from './proof.service';

/** Proof of liabilities (docs/integrity.md): Merkle sum tree roots at start-up, daily and on request; each user's inclusion proof. */
@Module({
  imports: [LedgerModule],
  controllers: [ProofController, ProofAdminController],
  providers: [ProofService, ProofJobsService],
  exports: [ProofService],
})
export class ProofModule {}
