import { Inject, Injectable } from '@nestjs/common';
import { verifyPassword } from '../../infra/auth/password';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { RateLimitService } from '../../infra/http/rate-limit.service';

/** The fund password gate of withdrawals and the address book (spec §6), with a limit on wrong guesses. */
@Injectable()
export class FundPasswordService {
  constructor(
    private readonly rateLimit: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A fund password must exist: otherwise the spec's prompt to set it. */
  requireSet(hash: string | null): asserts hash is string {
    if (!hash) throw new BusinessError(ErrorCode.FUND_PASSWORD_NOT_SET);
  }

  /** Wrong guesses count against RATE_LIMIT_FUND_PASSWORD (6 digits must not be brute-forced). */
  async verify(userId: number, hash: string, plain: string): Promise<void> {
    const bucket = `fund-password:${userId}`;
    await this.rateLimit.check(bucket, this.config.rateLimits.fundPassword);
    if (await verifyPassword(hash, plain)) return;
    await this.rateLimit.hit(bucket, this.config.rateLimits.fundPassword);
    throw new BusinessError(ErrorCode.FUND_PASSWORD_WRONG);
  }
}
