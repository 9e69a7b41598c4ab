import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { LedgerModule } from '../ledger/ledger.module';
import { UploadModule } from '../upload/upload.module';
import { UserModule } from '../user/user.module';
import { VerificationCodeModule } from '../verification-code/verification-code.module';
import { AccountsService } from './accounts.service';
import { AddressBookService } from './address-book.service';
import { DepositService } from './deposit.service';
import { FundPasswordService } from './fund-password.service';
import { FundingConfigService } from './funding-config.service';
import { WalletAdminController } from './wallet-admin.controller';
import { WalletController } from './wallet.controller';
import { WithdrawalService } from './withdrawal.service';

@Module({
  imports: [LedgerModule, UserModule, VerificationCodeModule, UploadModule, EngineModule],
  controllers: [WalletController, WalletAdminController],
  providers: [AccountsService, AddressBookService, DepositService, WithdrawalService, FundingConfigService, FundPasswordService],
  exports: [AccountsService, FundPasswordService],
})
export class WalletModule {}
