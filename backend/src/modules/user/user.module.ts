import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { RealNameModule } from '../real-name/real-name.module';
import { VerificationCodeModule } from '../verification-code/verification-code.module';
import { UserController } from './user.controller';
import { UserService } from './user.service';

@Module({
  imports: [LedgerModule, VerificationCodeModule, RealNameModule],
  controllers: [UserController],
  providers: [UserService],
  exports: [UserService],
})
export class UserModule {}
