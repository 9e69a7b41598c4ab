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

  /**
   * Wrong guesses count against RATE_LIMIT_FUND_PASSWORD (6 digits must not be brute-forced): after
   * N wrong ones in the window, every fund-password entry (withdrawals, the address book) is refused
   * with the time the lock ends, even with the right password, until the window has passed. A wrong
   * guess before that says how many are left. Guesses are counted before they are checked, so a
   * burst of parallel guesses gets no more checks than the limit.
   */
  async verify(userId: number, hash: string, plain: string): Promise<void> {
    const bucket = `fund-password:${userId}`;
    const rule = this.config.rateLimits.fundPassword;
    const guess = await this.rateLimit.guess(bucket, rule, () => verifyPassword(hash, plain));
    if (guess.outcome === 'right') return;
    if (guess.outcome === 'locked' || guess.count >= rule.limit) throw locked(guess.seconds);
    throw new BusinessError(ErrorCode.FUND_PASSWORD_WRONG, undefined, undefined, { attempts_left: rule.limit - guess.count });
  }
}

/** Code 1005: locked until a UTC time (to the second; ISO 8601 in `data.until`). */
function locked(seconds: number): BusinessError {
  const until = new Date(Date.now() + Math.max(seconds, 1) * 1000);
  const shown = until.toISOString().slice(0, 19).replace('T', ' ');
  return new BusinessError(ErrorCode.FUND_PASSWORD_LOCKED, 'error.fund_password_locked', { until: shown }, { until: until.toISOString(), seconds: Math.max(seconds, 1) });
}
