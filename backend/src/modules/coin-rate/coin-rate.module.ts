import { Global, Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { CoinRateController } from './coin-rate.controller';
import { CoinRateService } from './coin-rate.service';
import { PricingService } from './pricing.service';

@Global()
@Module({
  imports: [LedgerModule],
  controllers: [CoinRateController],
  providers: [CoinRateService, PricingService],
  exports: [PricingService, CoinRateService],
})
export class CoinRateModule {}
