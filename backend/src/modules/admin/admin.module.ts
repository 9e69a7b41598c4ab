import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { VerificationCodeModule } from '../verification-code/verification-code.module';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';

@Module({ imports: [LedgerModule, VerificationCodeModule, EngineModule], controllers: [AdminController], providers: [AdminService] })
export class AdminModule {}
