import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { UploadModule } from '../upload/upload.module';
import { UserModule } from '../user/user.module';
import { LoanAdminController, LoanController } from './loan.controller';
import { LoanAdminService } from './loan-admin.service';
import { LoanApprovalService } from './loan-approval.service';
import { LoanOverdueService } from './loan-overdue.service';
import { LoanRepaymentService } from './loan-repayment.service';
import { LoanService } from './loan.service';

/** Loans (borrow/*): products, the lending pool, applications approved by operators, repayments, the overdue job. */
@Module({
  imports: [LedgerModule, EngineModule, UploadModule, UserModule],
  controllers: [LoanController, LoanAdminController],
  providers: [LoanService, LoanAdminService, LoanApprovalService, LoanRepaymentService, LoanOverdueService],
})
export class LoanModule {}
