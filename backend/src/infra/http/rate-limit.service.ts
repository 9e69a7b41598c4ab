import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { RateLimitRule } from '../config/config';
import { REDIS } from '../redis/redis.module';
import { BusinessError } from './business-error';
import { ErrorCode } from './error-codes';

// Fixed window counter; atomic in Redis so replicas share one count.
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('TTL', KEYS[1])}`;
// A guess: refused without being counted once the window holds the limit (ARGV[2]), else counted.
// One step, so a refused guess never needs taking back.
const GUESS = `local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c >= tonumber(ARGV[2]) then return {c, redis.call('TTL', KEYS[1]), 0} end
c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('TTL', KEYS[1]), 1}`;
// Takes back one counted guess (a right one, or one whose check failed), never below 0: a DECR on a
// missing key would leave -1 for ever, and one landing in the next window must not lend it a guess.
const UNDO = `local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

/** A guess's outcome; `count` is how many wrong guesses the window holds now. */
export type Guess = { outcome: 'right' } | { outcome: 'wrong' | 'locked'; count: number; seconds: number };

/** Rate limits for login, registration and code sending, per IP and per account. */
@Injectable()
export class RateLimitService {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** Count one attempt in `bucket`; refuses (and changes nothing else) once over the rule. */
  async hit(bucket: string, rule: RateLimitRule): Promise<void> {
    const { count, seconds } = await this.add(bucket, rule);
    if (count > rule.limit) throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds });
  }

  /** Counts one attempt in `bucket`; returns how many the window holds now and the seconds until it ends. */
  private async add(bucket: string, rule: RateLimitRule): Promise<{ count: number; seconds: number }> {
    const [count, ttl] = (await this.redis.eval(HIT, 1, `rl:${bucket}`, rule.windowSeconds)) as [number, number];
    return { count, seconds: Math.max(ttl, 1) };
  }

  /**
   * One guess at a secret (a password) under `rule`, limiting wrong guesses: the guess is counted
   * before `check` runs, in one atomic step, so parallel guesses cannot all read a count under the
   * limit and be checked together; it is uncounted again when it was right (or `check` threw). Once
   * the window holds `rule.limit`, every guess is refused unchecked (`locked`), right or wrong.
   */
  async guess(bucket: string, rule: RateLimitRule, check: () => Promise<boolean>): Promise<Guess> {
    const [count, ttl, counted] = (await this.redis.eval(GUESS, 1, `rl:${bucket}`, rule.windowSeconds, rule.limit)) as [number, number, number];
    const seconds = Math.max(ttl, 1);
    if (!counted) return { outcome: 'locked', count, seconds };
    let right: boolean;
    try {
      right = await check();
    } catch (err) {
      await this.redis.eval(UNDO, 1, `rl:${bucket}`);
      throw err;
    }
    if (!right) return { outcome: 'wrong', count, seconds };
    await this.redis.eval(UNDO, 1, `rl:${bucket}`);
    return { outcome: 'right' };
  }

  /**
   * A login's guess at an account's password (`kind` names the kind of account, e.g.
   * `login:account`; `account` is the account as the client spelled it, kept in the keys as its
   * SHA-256, so that no spelling can name another account's key: `<victim>:ip:<address>` was the
   * victim's own count at that address, and ten wrong guesses at it locked the owner out). Wrong guesses are limited per account and address (`perAddress`):
   * past it that address is refused unchecked, the right password too, while the owner elsewhere
   * still logs in; one count for the account alone would let anyone keep its owner locked out.
   * They are also counted for the account from every address (`perAccount`): once that budget is
   * spent, an address gets one guess per `perAddress` window, so many addresses guess ten times
   * slower, and an address with no wrong guess (the owner's) still gets in with the right password.
   */
  async loginGuess(
    kind: string,
    spelled: string,
    ip: string,
    perAddress: RateLimitRule,
    perAccount: RateLimitRule,
    check: () => Promise<boolean>,
  ): Promise<Guess> {
    const account = `${kind}:${createHash('sha256').update(spelled).digest('base64url')}`;
    const spent = Number((await this.redis.get(`rl:${account}`)) ?? 0) >= perAccount.limit;
    const guess = await this.guess(`${account}:ip:${ip}`, spent ? { ...perAddress, limit: 1 } : perAddress, check);
    if (guess.outcome === 'wrong') await this.add(account, perAccount);
    return guess;
  }
}
