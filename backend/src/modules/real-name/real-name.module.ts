import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { UploadModule } from '../upload/upload.module';
import { RealNameAdminController } from './real-name-admin.controller';
import { RealNameController } from './real-name.controller';
import { RealNameService } from './real-name.service';

@Module({
  imports: [LedgerModule, UploadModule],
  controllers: [RealNameController, RealNameAdminController],
  providers: [RealNameService],
  exports: [RealNameService],
})
export class RealNameModule {}
