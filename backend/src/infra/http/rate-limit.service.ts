import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimitRule } from '../config/config';
import { REDIS } from '../redis/redis.module';
import { BusinessError } from './business-error';
import { ErrorCode } from './error-codes';

// Fixed window counter; atomic in Redis so replicas share one count.
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('TTL', KEYS[1])}`;

/** Rate limits for login, registration and code sending, per IP and per account. */
@Injectable()
export class RateLimitService {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** Count one attempt in `bucket`; refuses (and changes nothing else) once over the rule. */
  async hit(bucket: string, rule: RateLimitRule): Promise<void> {
    const { count, seconds } = await this.fail(bucket, rule);
    if (count > rule.limit) throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds });
  }

  /**
   * Counts one failure in `bucket` without refusing; returns how many the window holds now and the
   * seconds until it ends (lock-outs: `state` first, `fail` on a wrong guess).
   */
  async fail(bucket: string, rule: RateLimitRule): Promise<{ count: number; seconds: number }> {
    const [count, ttl] = (await this.redis.eval(HIT, 1, `rl:${bucket}`, rule.windowSeconds)) as [number, number];
    return { count, seconds: Math.max(ttl, 1) };
  }

  /** The failures `bucket` holds now and the seconds until its window ends (0 when empty). */
  async state(bucket: string): Promise<{ count: number; seconds: number }> {
    const [count, ttl] = await Promise.all([this.redis.get(`rl:${bucket}`), this.redis.ttl(`rl:${bucket}`)]);
    return { count: Number(count ?? 0), seconds: Math.max(ttl, 0) };
  }

  /** Refuses once `bucket` already holds `rule.limit` attempts (for counting failures only: check first, `hit` on failure). */
  async check(bucket: string, rule: RateLimitRule): Promise<void> {
    const { count, seconds } = await this.state(bucket);
    if (count >= rule.limit) throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds: Math.max(seconds, 1) });
  }
}
