import { Module } from '@nestjs/common';
import { FundPasswordGate } from '../../infra/auth/fund-password-gate';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { WalletModule } from '../wallet/wallet.module';
import { FlashExchangeController } from './fpjy.controller';
import { FlashExchangeService } from './fpjy.service';

@Module({ imports: [LedgerModule, WalletModule, EngineModule], controllers: [FlashExchangeController], providers: [FlashExchangeService, RateLimitService, FundPasswordGate] })
export class FlashExchangeModule {}
