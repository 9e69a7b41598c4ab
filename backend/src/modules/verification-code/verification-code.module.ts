import { Module } from '@nestjs/common';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { Notifier, OutboxNotifier } from '../../infra/notifier/notifier';
import { VerificationCodeService } from './verification-code.service';

@Module({
  providers: [VerificationCodeService, RateLimitService, { provide: Notifier, useClass: OutboxNotifier }],
  exports: [VerificationCodeService, RateLimitService],
})
export class VerificationCodeModule {}
