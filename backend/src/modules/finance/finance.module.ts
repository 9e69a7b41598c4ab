import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { FinanceController } from './finance.controller';
import { FinanceService } from './finance.service';
import { WealthAccrualService } from './wealth-accrual.service';
import { WealthProductsService } from './wealth-products.service';

/** Wealth products: fixed-term hosting, the flexible fund and mining-machine rental (routes lh/deposit…). */
@Module({
  imports: [LedgerModule, EngineModule],
  controllers: [FinanceController],
  providers: [FinanceService, WealthProductsService, WealthAccrualService],
  exports: [WealthAccrualService],
})
export class FinanceModule {}
