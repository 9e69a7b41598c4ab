import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { VerificationCodeModule } from '../verification-code/verification-code.module';
import { UserController } from './user.controller';
import { UserService } from './user.service';

@Module({
  imports: [LedgerModule, VerificationCodeModule],
  controllers: [UserController],
  providers: [UserService],
  exports: [UserService],
})
export class UserModule {}
