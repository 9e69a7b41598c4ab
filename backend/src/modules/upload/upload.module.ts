import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { FileStorage, LocalDiskStorage } from './file-storage';
import { UploadAdmissionGuard } from './upload-admission.guard';
import { UploadController } from './upload.controller';
import { UploadService } from './upload.service';
import { UserOrAdminGuard } from './user-or-admin.guard';

@Module({
  // The event store (an operator's read of an image is recorded).
  imports: [LedgerModule],
  controllers: [UploadController],
  providers: [
    UploadService,
    RateLimitService,
    UserOrAdminGuard,
    UploadAdmissionGuard,
    { provide: FileStorage, useFactory: (config: AppConfig) => new LocalDiskStorage(config.uploadDir), inject: [APP_CONFIG] },
  ],
  exports: [UploadService],
})
export class UploadModule {}
