import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { updateReturning } from '../../infra/database/sql';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import type { Page } from '../../infra/http/page.dto';
import { money, Money, moneyString, truncate } from '../../infra/money';
import { PricingService } from '../coin-rate/pricing.service';
import { EngineHost } from '../engine/engine-host.service';
import { OutboxRelay } from '../engine/outbox-relay.service';
import { coinLeg, Posting, systemLeg, TradeAccountCommands } from '../engine/trade-account-commands';
import { LedgerCode } from '../ledger/ledger-codes';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { LedgerService } from '../ledger/ledger.service';
import { UserMessageService } from '../notice/user-message.service';
import { UserService } from '../user/user.service';
import { positive } from './accounts.service';
import { AddressBookService } from './address-book.service';
import type { AdminRecordQueryDto, ApproveWithdrawalDto, RecordQueryDto, WithdrawDto } from './dto/funding.dto';
import { FundPasswordService } from './fund-password.service';
import { FundingConfigService } from './funding-config.service';
import { decide, decidedBefore, records } from './review';
import { Withdrawal } from './withdrawal.entity';

/** How often the engine's owner finishes requests left `submitting` (a crash, a lost answer), and how old they must be. */
const SWEEP_MS = 3000;
const STALE_MS = 2000;
/** How long a run's claim on a `submitting` row lasts at least (finishSubmission); also twice a send's bound (claimMs). */
const CLAIM_MS = 10_000;

/** The USDT-equivalent amounts and counts of today's (UTC) requests that still count. */
interface Today {
  requests: number;
  usdt: Money;
}

/**
 * Withdrawals (spec §5, §9): fund password, real-name verification, an address from the book,
 * minimum and fee per coin, at most N requests and a USDT-equivalent limit per UTC day. The
 * amount is frozen on request; an operator's approval pays it out (101), a rejection unfreezes it.
 */
@Injectable()
export class WithdrawalService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Withdrawal');
  private readonly perUser = new Map<number, Promise<unknown>>();
  private sweeper?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly users: UserService,
    private readonly addresses: AddressBookService,
    private readonly fundPassword: FundPasswordService,
    private readonly funding: FundingConfigService,
    private readonly pricing: PricingService,
    private readonly messages: UserMessageService,
    private readonly trading: TradeAccountCommands,
    private readonly outbox: OutboxRelay,
    private readonly host: EngineHost,
    private readonly events: EventStoreService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rateLimit: RateLimitService,
  ) {}

  /** A claim outlasts any send that can still be answered: twice the forwarded command's bound, at least CLAIM_MS. */
  private get claimMs(): number {
    return Math.max(CLAIM_MS, 2 * this.config.engine.forwardTimeoutMs);
  }

  private dailyLimit(level: number): Money {
    return money(level >= 2 ? this.config.withdrawals.dailyLimitAdvanced : level >= 1 ? this.config.withdrawals.dailyLimitBasic : 0);
  }

  /** Requests made today count (even rejected ones); only requests not rejected use up the amount. */
  private async today(m: EntityManager, userId: number): Promise<Today> {
    const [row] = await m.query(
      `SELECT COUNT(*)::int AS n, COALESCE(SUM(usdt_value) FILTER (WHERE status <> 'rejected'), 0)::text AS usdt
       FROM withdrawals WHERE user_id = $1 AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
      [userId],
    );
    return { requests: row.n, usdt: money(row.usdt) };
  }

  /** wallet/get_info: what a withdrawal of this coin costs and how much is left today. */
  async info(userId: number, currencyId: number) {
    const [user, coin, today, balance] = await Promise.all([
      this.users.findById(userId),
      this.funding.coin(currencyId),
      this.today(this.dataSource.manager, userId),
      this.ledger.balancesOf('user', userId),
    ]);
    const limit = this.dailyLimit(user.verificationLevel);
    const available = balance.find((b) => b.accountType === 'coin' && b.currencyId === currencyId)?.available ?? '0';
    const left = Money.max(limit.minus(today.usdt), 0);
    return {
      currency_id: coin.id,
      symbol: coin.symbol,
      chains: (await this.funding.chains(coin.id)).map((c) => c.chain),
      available: truncate(available, coin.displayDecimals),
      decimals: coin.displayDecimals,
      fee: moneyString(coin.withdrawFee),
      min_amount: moneyString(coin.minWithdraw),
      requests_per_day: this.config.withdrawals.perDay,
      remaining_requests_today: Math.max(this.config.withdrawals.perDay - today.requests, 0),
      daily_limit_usdt: limit.toString(),
      remaining_amount_today_usdt: truncate(left, 2),
      verification_level: user.verificationLevel,
      has_fund_password: user.fundPasswordHash !== null,
      arrival_hours: 12,
    };
  }

  /** wallet/out. Checks in the order a user can fix them; then one transaction per user at a time. */
  async request(userId: number, dto: WithdrawDto): Promise<{ withdrawal_id: number; duplicate: boolean }> {
    // A retry answers what its first request created, before the checks below, which may answer
    // otherwise since (an address removed, a fee raised, a coin disabled, no price for a moment), and
    // without counting against the limit (a client asking again after 2107 learns the result).
    const prior = dto.client_id ? await this.priorOf(this.dataSource.manager, userId, dto.client_id) : undefined;
    if (prior) return this.oneAtATime(userId, () => this.finished(prior));
    // Every new request counts, refused or not (RATE_LIMIT_WITHDRAW_USER): no hammering of the checks below.
    await this.rateLimit.hit(`withdraw:user:${userId}`, this.config.rateLimits.withdrawPerUser);
    const user = await this.users.findById(userId);
    this.fundPassword.requireSet(user.fundPasswordHash);
    if (user.verificationLevel < 1) throw new BusinessError(ErrorCode.REAL_NAME_REQUIRED);
    const address = await this.addresses.own(userId, dto.address_id);
    // The entry's network must still be enabled, as its coin must (an operator may close either).
    const { coin } = await this.funding.chain(address.currencyId, address.chain);
    const amount = positive(dto.amount);
    // No more decimals than the coin has: what leaves is what the network can send.
    if (amount.decimalPlaces() > coin.displayDecimals) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
    feeFor(coin, amount);
    await this.fundPassword.verify(userId, user.fundPasswordHash, dto.password);
    const usdt = await this.pricing.limitValue(coin.id, amount, coin.symbol);

    return this.oneAtATime(userId, () => this.submit(userId, user.verificationLevel, dto, coin, address, amount, usdt));
  }

  /**
   * A user's withdrawals run one at a time, each to its end (row, freeze, result), so today's
   * count, the limit and the balance each see the ones before it. Waiting happens in memory, not
   * on a database connection; the row lock below also orders requests from other processes.
   */
  private oneAtATime<T>(userId: number, run: () => Promise<T>): Promise<T> {
    const before = this.perUser.get(userId) ?? Promise.resolve();
    const mine = before.then(run, run);
    const tail = mine.catch(() => undefined);
    this.perUser.set(userId, tail);
    void tail.then(() => this.perUser.get(userId) === tail && this.perUser.delete(userId));
    return mine;
  }

  private async submit(
    userId: number,
    level: number,
    dto: WithdrawDto,
    coin: { id: number },
    address: { chain: string; address: string },
    amount: Money,
    usdt: Money,
  ): Promise<{ withdrawal_id: number; duplicate: boolean }> {
    // The row is committed first (status `submitting`), so a crash after the freeze leaves a row for the
    // sweep to finish; it is made claimed by this request (finishSubmission), so the sweep leaves it alone meanwhile.
    const claim = randomUUID();
    const row = await this.dataSource.transaction(async (m): Promise<{ id: number; duplicate: boolean; submitting: boolean; claim?: string }> => {
      await m.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const prior = dto.client_id ? await this.priorOf(m, userId, dto.client_id) : undefined;
      if (prior) return prior;
      // The coin's rules and its network as they stand now, held until this commits: an operator's
      // change committed meanwhile (a fee raised, a minimum, the network or the coin closed) is what
      // this request is made on (regression: the fee read before was recorded, and paid on approval).
      const { coin: rules } = await this.funding.chain(coin.id, address.chain, m);
      const fee = feeFor(rules, amount);
      const today = await this.today(m, userId);
      if (today.requests >= this.config.withdrawals.perDay)
        throw new BusinessError(ErrorCode.WITHDRAW_DAILY_COUNT, undefined, { count: String(this.config.withdrawals.perDay) });
      const limit = this.dailyLimit(level);
      if (today.usdt.plus(usdt).gt(limit)) {
        throw new BusinessError(ErrorCode.WITHDRAW_DAILY_LIMIT, undefined, {
          limit: limit.toString(),
          left: truncate(Money.max(limit.minus(today.usdt), 0), 2),
        });
      }
      const [created] = await m.query(
        `INSERT INTO withdrawals (user_id, currency_id, chain, address, amount, fee, actual_amount, usdt_value, remark, client_id, status, claim, claimed_until)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'submitting', $11, now() + make_interval(secs => $12)) RETURNING id`,
        [
          userId,
          coin.id,
          address.chain,
          address.address,
          moneyString(amount),
          moneyString(fee),
          moneyString(amount.minus(fee)),
          moneyString(usdt),
          dto.remark?.trim() ?? '',
          dto.client_id ?? null,
          claim,
          this.claimMs / 1000,
        ],
      );
      return { id: created.id as number, duplicate: false, submitting: true, claim };
    });
    // A retry whose first request has not finished (its answer lost: 2105–2107, a stopped process)
    // finishes it now with the same command id, so it answers what was done: frozen, or refused.
    return this.finished(row);
  }

  /** The row a user's `client_id` already made, as a retry answers it. */
  private async priorOf(m: EntityManager, userId: number, clientId: string): Promise<{ id: number; duplicate: true; submitting: boolean } | undefined> {
    const [prior] = await m.query('SELECT id, status FROM withdrawals WHERE user_id = $1 AND client_id = $2', [userId, clientId]);
    return prior ? { id: prior.id as number, duplicate: true, submitting: prior.status === 'submitting' } : undefined;
  }

  /** The answer to a request whose row exists; one left `submitting` is finished first (frozen, or refused). */
  private async finished(row: { id: number; duplicate: boolean; submitting: boolean; claim?: string }): Promise<{ withdrawal_id: number; duplicate: boolean }> {
    if (!row.submitting) return { withdrawal_id: row.id, duplicate: row.duplicate };
    const made = await this.finishSubmission(row.id, !row.duplicate, row.claim);
    // Another run holds it (the sweep, or a retry on another process): its result is not known yet.
    if (made === undefined) throw new BusinessError(ErrorCode.ENGINE_UNKNOWN);
    if (!made) throw new BusinessError(ErrorCode.INSUFFICIENT_BALANCE);
    return { withdrawal_id: row.id, duplicate: row.duplicate };
  }

  /**
   * Available → frozen until an operator decides (command `withdrawal-freeze:<id>`), then the row
   * goes to review; if the balance is short the row is removed and nothing has changed. Run again
   * by a retry and by the sweep for rows left `submitting`: the sequencer answers a repeated command id
   * with its first result (past its window, `sequencer_commands` answers an applied one), so the
   * freeze happens once and the row ends in one state.
   *
   * One run at a time per row: a run claims it (`claim`, a token, until `claimed_until`: the request
   * that made it holds it from the start) and ends it only under its own token, so a row removed
   * after one send was refused is never frozen by another's send (the amount stayed frozen with no
   * withdrawal to approve or reject), and no database connection is held across the send. A claim
   * left by a stopped process lapses after `claimMs`; a run that outlives its claim changes nothing.
   * Answers whether the withdrawal was made; undefined when another run holds the row.
   *
   * `first`: the request that made the row. If the sequencer refused to take its send (2106, the lag
   * bound: not journaled), that was the only send, as the answer tells the user: the row goes too. On
   * a retry, an earlier send of the same command may still be queued or applied, so the row stays for
   * a later retry or the sweep. Any other error leaves the result unknown: the row stays, unclaimed.
   */
  private async finishSubmission(id: number, first: boolean, held?: string): Promise<boolean | undefined> {
    const claim = held ?? randomUUID();
    const [w] = await updateReturning<{ user_id: number; currency_id: number; amount: string; chain: string; address: string }>(
      this.dataSource.manager,
      `UPDATE withdrawals SET claim = $2, claimed_until = now() + make_interval(secs => $3)
        WHERE id = $1 AND status = 'submitting' AND (claim = $2 OR claimed_until IS NULL OR claimed_until < now())
        RETURNING user_id, currency_id, amount::text, chain, address`,
      [id, claim, this.claimMs / 1000],
    );
    if (!w) return this.made(id);
    const mine = `WHERE id = $1 AND claim = $2 AND status = 'submitting'`;
    const amount = moneyString(w.amount);
    let code: string;
    try {
      ({ code } = await this.trading.post({
        commandId: `withdrawal-freeze:${id}`,
        refType: 'withdrawal',
        refId: String(id),
        actor: `user:${w.user_id}`,
        memo: `${w.chain} ${w.address}`,
        legs: [coinLeg(w.user_id, w.currency_id, LedgerCode.Freeze, `-${amount}`, amount)],
      }));
    } catch (err) {
      if (first && err instanceof BusinessError && err.code === ErrorCode.SEQUENCER_BEHIND) {
        const gone = await updateReturning(this.dataSource.manager, `DELETE FROM withdrawals ${mine} RETURNING id`, [id, claim]);
        if (!gone.length) {
          // Our claim lapsed during the send and another run's send of the freeze was taken: the
          // withdrawal was made (or may still be), so not "nothing was done".
          const made = await this.made(id);
          if (made === undefined) throw new BusinessError(ErrorCode.ENGINE_UNKNOWN);
          if (made) return true;
        }
      } else await this.dataSource.query(`UPDATE withdrawals SET claimed_until = NULL ${mine}`, [id, claim]);
      throw err;
    }
    if (code !== 'OK') {
      await this.dataSource.query(`DELETE FROM withdrawals ${mine}`, [id, claim]);
      return false;
    }
    // Not ours any more (a run that took the lapsed claim sent the same command, answered the same): made either way.
    await this.dataSource.query(`UPDATE withdrawals SET status = 'review', claim = NULL, claimed_until = NULL ${mine}`, [id, claim]);
    return true;
  }

  /** What a row another run holds or ended says: gone, refused (a `submitting` row is only ever removed by its refusal); past `submitting`, made; else undefined, still being finished. */
  private async made(id: number): Promise<boolean | undefined> {
    const [row] = await this.dataSource.query('SELECT status FROM withdrawals WHERE id = $1', [id]);
    return !row ? false : row.status !== 'submitting' ? true : undefined;
  }

  /**
   * Requests a crash or a lost answer left between their row and their freeze: finished by the
   * engine's owner at start and every few seconds after (`SWEEP_MS`); a freeze already applied is
   * answered as such (by the sequencer's window or `sequencer_commands`), so each is frozen once or
   * removed once.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.host.whenOwner(async () => {
      await this.finishLeftovers(0);
    });
    this.sweeper = setInterval(() => void this.finishLeftovers().catch((err) => this.logger.warn({ err }, 'withdrawal sweep failed')), SWEEP_MS);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Finishes the `submitting` rows older than `olderThanMs` (the request itself finishes younger ones). */
  async finishLeftovers(olderThanMs = STALE_MS): Promise<number> {
    if (this.sweeping || !this.host.settled) return 0;
    this.sweeping = true;
    try {
      const rows = await this.dataSource
        .getRepository(Withdrawal)
        .createQueryBuilder('w')
        .where(`w.status = 'submitting' AND w.created_at <= now() - make_interval(secs => :secs)`, { secs: olderThanMs / 1000 })
        .orderBy('w.id')
        .getMany();
      // A row that fails (its send's result unknown) is tried again next time; the rows after it go on.
      const failures: unknown[] = [];
      for (const w of rows) await this.finishSubmission(w.id, false).catch((err: unknown) => failures.push(err));
      if (failures.length) throw failures[0];
      return rows.length;
    } finally {
      this.sweeping = false;
    }
  }

  /** charge_mention/log3 (own records) and the operator list. */
  async records(q: RecordQueryDto | AdminRecordQueryDto, userId?: number): Promise<Page<ReturnType<typeof recordView>>> {
    const coins = await this.funding.coinMap();
    return records(this.dataSource.getRepository(Withdrawal), q, userId, (r) => recordView(r, coins.get(r.currencyId)?.symbol ?? '', userId === undefined));
  }

  /** Pays out: the frozen amount leaves (101): amount − fee to the outside world, the fee to the exchange. */
  async approve(adminId: number, id: number, dto: ApproveWithdrawalDto) {
    return this.decideWith(id, `withdrawal-approve:${id}`, async (m) => {
      const w = await decide(m, 'withdrawals', this.dataSource.getRepository(Withdrawal), id, {
        status: 'passed',
        adminId,
        reason: dto.reason ?? null,
        txHash: dto.tx_hash ?? null,
      });
      const legs = [
        coinLeg(w.userId, w.currencyId, LedgerCode.WithdrawalDeduction, '0', `-${moneyString(w.amount)}`),
        systemLeg('external', w.currencyId, LedgerCode.WithdrawalDeduction, moneyString(w.actualAmount)),
      ];
      if (money(w.fee).gt(0)) legs.push(systemLeg('fees', w.currencyId, LedgerCode.WithdrawalDeduction, moneyString(w.fee)));
      await this.decided(m, 'WithdrawalApproved', w, `admin:${adminId}`, dto.reason, { txHash: dto.tx_hash ?? null });
      const coin = await this.funding.coin(w.currencyId, true);
      await this.messages.leave(m, w.userId, 'notice.withdrawal_approved', { amount: moneyString(w.actualAmount), coin: coin.symbol }, `withdrawal:${id}`);
      return {
        posting: { refType: 'withdrawal', refId: String(id), actor: `admin:${adminId}`, reason: dto.reason, legs },
        view: recordView(w, coin.symbol, true),
      };
    });
  }

  /** Refuses: exactly the frozen amount goes back to available (902), with the reason shown to the user. */
  async reject(adminId: number, id: number, reason: string) {
    return this.decideWith(id, `withdrawal-reject:${id}`, async (m) => {
      const w = await decide(m, 'withdrawals', this.dataSource.getRepository(Withdrawal), id, { status: 'rejected', adminId, reason });
      const amount = moneyString(w.amount);
      await this.decided(m, 'WithdrawalRejected', w, `admin:${adminId}`, reason);
      const coin = await this.funding.coin(w.currencyId, true);
      await this.messages.leave(m, w.userId, 'notice.withdrawal_rejected', { amount, coin: coin.symbol, reason }, `withdrawal:${id}`);
      return {
        posting: {
          refType: 'withdrawal',
          refId: String(id),
          actor: `admin:${adminId}`,
          reason,
          legs: [coinLeg(w.userId, w.currencyId, LedgerCode.Unfreeze, amount, `-${amount}`)],
        },
        view: recordView(w, coin.symbol, true),
      };
    });
  }

  /**
   * The operator's decision as an event (DESIGN §5: every admin decision is one, with the admin and
   * the reason), in the decision's transaction; the money command that follows it carries them too.
   */
  private decided(m: EntityManager, type: 'WithdrawalApproved' | 'WithdrawalRejected', w: Withdrawal, actor: string, reason?: string, more: object = {}) {
    return this.events.append(m, { streamId: `withdrawal:${w.id}`, metadata: { actor, reason } }, [
      { type, payload: { withdrawalId: w.id, userId: w.userId, currencyId: w.currencyId, amount: moneyString(w.amount), ...more } },
    ]);
  }

  /**
   * The decision and its money command commit together (outbox); the answer waits until the sequencer
   * has applied it: 2107 when not in time (it will be, once a sequencer runs). The same decision again
   * answers 2107 while its command is still on its way, then 2209 (decided once).
   */
  private async decideWith<V>(
    id: number,
    commandId: string,
    decideIn: (m: EntityManager) => Promise<{ posting: Omit<Posting, 'commandId'>; view: V }>,
  ): Promise<V> {
    const view = await this.dataSource
      .transaction(async (m) => {
        const { posting, view } = await decideIn(m);
        await this.outbox.enqueue(m, { commandId, ...posting });
        return view;
      })
      .catch((err: unknown) => decidedBefore(this.outbox, commandId, err));
    await this.outbox.appliedOrFail(commandId);
    return view;
  }
}

function recordView(w: Withdrawal, symbol: string, forOperator: boolean) {
  return {
    id: w.id,
    ...(forOperator ? { user_id: w.userId, usdt_value: moneyString(w.usdtValue), reviewed_by: w.reviewedBy } : {}),
    currency_id: w.currencyId,
    symbol,
    chain: w.chain,
    address: w.address,
    amount: moneyString(w.amount),
    fee: moneyString(w.fee),
    actual_amount: moneyString(w.actualAmount),
    remark: w.remark,
    status: w.status,
    // A rejection's reason is the user's; an approval's note is the operators' (docs/api.md).
    reason: forOperator || w.status === 'rejected' ? w.reason : null,
    tx_hash: w.txHash,
    created_at: new Date(w.createdAt).toISOString(),
    reviewed_at: w.reviewedAt ? new Date(w.reviewedAt).toISOString() : null,
  };
}

/** The withdrawal fee of `amount` on a coin's rules; 2204 below its minimum (at least the fee, and more than it). */
function feeFor(coin: { withdrawFee: string; minWithdraw: string; symbol: string }, amount: Money): Money {
  const fee = money(coin.withdrawFee);
  const min = Money.max(coin.minWithdraw, fee);
  if (amount.lt(min) || amount.lte(fee)) throw new BusinessError(ErrorCode.WITHDRAW_BELOW_MIN, undefined, { min: moneyString(min), coin: coin.symbol });
  return fee;
}
