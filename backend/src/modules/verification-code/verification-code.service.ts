import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { updateReturning } from '../../infra/database/sql';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode, ErrorCodeValue } from '../../infra/http/error-codes';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { Lang } from '../../infra/i18n/catalogue';
import { translate } from '../../infra/i18n/i18n';
import { Notifier } from '../../infra/notifier/notifier';
import { CodePurpose, OWN_CONTACT_PURPOSES } from './code-purpose';

export const CODE_TTL_SECONDS = 600;
export const RESEND_GUARD_SECONDS = 60;
export const MAX_WRONG_TRIES = 5;

/** A try at a code: its id when right; else the error, and whether it was a wrong guess at a live code. */
type Tried = { id: string } | { error: ErrorCodeValue; guessed: boolean };

const hashCode = (target: string, purpose: string, code: string) => createHash('sha256').update(`${target}|${purpose}|${code}`).digest();

/**
 * Six-digit one-time codes: valid 10 minutes, one send per target and purpose a minute, and a
 * code is burnt after 5 wrong tries. Only a hash is stored; the code itself goes to the notifier.
 */
@Injectable()
export class VerificationCodeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly notifier: Notifier,
    private readonly rateLimit: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(channel: 'sms' | 'email', target: string, purpose: CodePurpose, lang: Lang, ip: string): Promise<void> {
    await this.rateLimit.hit(`code:ip:${ip}`, this.config.rateLimits.codePerIp);
    await this.dataSource.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`code:${target}:${purpose}`]);
      const [recent] = await m.query(
        `SELECT CEIL(EXTRACT(EPOCH FROM (created_at + make_interval(secs => $3) - now())))::int AS wait
         FROM verification_codes WHERE target = $1 AND purpose = $2 AND created_at > now() - make_interval(secs => $3)
         ORDER BY id DESC LIMIT 1`,
        [target, purpose, RESEND_GUARD_SECONDS],
      );
      if (recent) throw new BusinessError(ErrorCode.CODE_TOO_FREQUENT, 'error.code_too_frequent', { seconds: Math.max(1, recent.wait) });
      // Counted per recipient only once the guard lets a code go: refused resends (1104) must not
      // spend the recipient's quota, or rapid requests would block the owner's own codes for the window.
      // The codes a signed-in owner asks for (fund password, address book) have a quota of their own:
      // anyone who knows the contact can ask for its `forget` codes, and used up the owner's with them.
      await this.rateLimit.hit(`code:target:${target}${OWN_CONTACT_PURPOSES.includes(purpose) ? ':own' : ''}`, this.config.rateLimits.codePerTarget);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await m.query(
        `INSERT INTO verification_codes (channel, target, purpose, code_hash, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
        [channel, target, purpose, hashCode(target, purpose, code).toString('hex'), CODE_TTL_SECONDS],
      );
      await this.notifier.send({ channel, recipient: target, purpose, body: translate(lang, 'notify.code', { code }) }, m);
    });
  }

  /**
   * Checks the latest code. A wrong try is counted at once (in its own transaction, so it sticks
   * even when the caller's work is rolled back); a right one returns the code's id for `consume`.
   */
  async check(target: string, purpose: CodePurpose, code: string, ip?: string): Promise<string> {
    // Wrong tries are also limited per recipient and purpose over all its codes: five per code alone
    // let anyone asking for new `forget` codes guess on for ever. A try with no live code to guess
    // (none, expired, burnt) is not counted. Tries anyone can make (`register`, `forget`: `ip` given)
    // are counted as login passwords are (RateLimitService.loginGuess): per address
    // (RATE_LIMIT_CODE_GUESS_IP), and from every address (RATE_LIMIT_CODE_GUESS), past which an
    // address gets one try per window, so a stranger's wrong tries never lock the owner out. The
    // signed-in owner's own (no `ip`) past RATE_LIMIT_CODE_GUESS are refused unchecked until the window ends.
    const tried: { outcome?: Tried } = {};
    const attempt = async () => {
      const outcome = (tried.outcome = await this.tryCode(target, purpose, code));
      return !('error' in outcome && outcome.guessed);
    };
    const { codeGuessPerTarget, codeGuessPerAddress } = this.config.rateLimits;
    const guess =
      ip === undefined
        ? await this.rateLimit.guess(`code:guess:${purpose}:${target}`, codeGuessPerTarget, attempt)
        : await this.rateLimit.loginGuess(`code:guess:${purpose}`, target, ip, codeGuessPerAddress, codeGuessPerTarget, attempt);
    if (guess.outcome === 'locked') throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds: guess.seconds });
    const outcome = tried.outcome!;
    if ('error' in outcome) throw new BusinessError(outcome.error);
    return outcome.id;
  }

  /** One try at the latest code; `guessed`: it was a wrong guess at a live code (counted on the code). */
  private tryCode(target: string, purpose: CodePurpose, code: string): Promise<Tried> {
    return this.dataSource.transaction(async (m): Promise<Tried> => {
      const [row] = await m.query(
        `SELECT id, code_hash, attempts, (expires_at <= now()) AS expired FROM verification_codes
         WHERE target = $1 AND purpose = $2 AND consumed_at IS NULL ORDER BY id DESC LIMIT 1 FOR UPDATE`,
        [target, purpose],
      );
      if (!row || row.expired) return { error: ErrorCode.CODE_INVALID, guessed: false };
      if (row.attempts >= MAX_WRONG_TRIES) return { error: ErrorCode.CODE_BURNED, guessed: false };
      const expected = Buffer.from(String(row.code_hash).trim(), 'hex');
      if (/^\d{6}$/.test(code) && timingSafeEqual(expected, hashCode(target, purpose, code))) return { id: String(row.id) };
      // Returned, not thrown: the counted try must commit.
      const [{ attempts }] = await updateReturning<{ attempts: number }>(
        m,
        'UPDATE verification_codes SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts',
        [row.id],
      );
      return { error: attempts >= MAX_WRONG_TRIES ? ErrorCode.CODE_BURNED : ErrorCode.CODE_INVALID, guessed: true };
    });
  }

  /**
   * Marks a checked code used, inside the caller's transaction; a code works once. The codes sent
   * before it to the same recipient for the same purpose end with it: `check` reads the latest
   * unused one, and an older code still in its time became the latest again once this one was
   * used (regression: it authorised a second change).
   */
  async consume(manager: EntityManager, codeId: string): Promise<void> {
    const rows = await updateReturning(manager, 'UPDATE verification_codes SET consumed_at = now() WHERE id = $1 AND consumed_at IS NULL RETURNING id', [
      codeId,
    ]);
    if (!rows.length) throw new BusinessError(ErrorCode.CODE_INVALID);
    await manager.query(
      `UPDATE verification_codes v SET consumed_at = now() FROM verification_codes c
        WHERE c.id = $1 AND v.target = c.target AND v.purpose = c.purpose AND v.id < c.id AND v.consumed_at IS NULL`,
      [codeId],
    );
  }
}
