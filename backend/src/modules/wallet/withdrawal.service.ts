import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import { money, Money, moneyString, truncate } from '../../infra/money';
import { PricingService } from '../coin-rate/pricing.service';
import { EngineBus } from '../engine/engine-bus';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService, Movement } from '../ledger/ledger.service';
import { UserMessageService } from '../notice/user-message.service';
import { UserService } from '../user/user.service';
import { positive } from './accounts.service';
import { AddressBookService } from './address-book.service';
import type { AdminRecordQueryDto, ApproveWithdrawalDto, RecordQueryDto, WithdrawDto } from './dto/funding.dto';
import { FundPasswordService } from './fund-password.service';
import { FundingConfigService } from './funding-config.service';
import { decide, records } from './review';
import { Withdrawal } from './withdrawal.entity';

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
export class WithdrawalService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly users: UserService,
    private readonly addresses: AddressBookService,
    private readonly fundPassword: FundPasswordService,
    private readonly funding: FundingConfigService,
    private readonly pricing: PricingService,
    private readonly messages: UserMessageService,
    private readonly bus: EngineBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

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
    const user = await this.users.findById(userId);
    this.fundPassword.requireSet(user.fundPasswordHash);
    if (user.verificationLevel < 1) throw new BusinessError(ErrorCode.REAL_NAME_REQUIRED);
    const address = await this.addresses.own(userId, dto.address_id);
    const coin = await this.funding.coin(address.currencyId);
    const amount = positive(dto.amount);
    const fee = money(coin.withdrawFee);
    const min = Money.max(coin.minWithdraw, fee);
    if (amount.lt(min) || amount.lte(fee)) throw new BusinessError(ErrorCode.WITHDRAW_BELOW_MIN, undefined, { min: moneyString(min), coin: coin.symbol });
    await this.fundPassword.verify(userId, user.fundPasswordHash, dto.password);
    const usdt = await this.pricing.usdtValue(coin.id, amount, coin.symbol);

    const out = await this.dataSource.transaction(async (m) => {
      // Serialize this user's withdrawals: the daily count, the limit and the freeze see one another.
      await m.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (dto.client_id) {
        const [prior] = await m.query('SELECT id FROM withdrawals WHERE user_id = $1 AND client_id = $2', [userId, dto.client_id]);
        if (prior) return { withdrawal_id: prior.id, duplicate: true };
      }
      const today = await this.today(m, userId);
      if (today.requests >= this.config.withdrawals.perDay)
        throw new BusinessError(ErrorCode.WITHDRAW_DAILY_COUNT, undefined, { count: String(this.config.withdrawals.perDay) });
      const limit = this.dailyLimit(user.verificationLevel);
      if (today.usdt.plus(usdt).gt(limit)) {
        throw new BusinessError(ErrorCode.WITHDRAW_DAILY_LIMIT, undefined, {
          limit: limit.toString(),
          left: truncate(Money.max(limit.minus(today.usdt), 0), 2),
        });
      }
      const [row] = await m.query(
        `INSERT INTO withdrawals (user_id, currency_id, chain, address, amount, fee, actual_amount, usdt_value, remark, client_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
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
        ],
      );
      // Available → frozen until an operator decides; refused (and rolled back) if the balance is short.
      await this.ledger.post(
        {
          commandId: `withdrawal-freeze:${row.id}`,
          refType: 'withdrawal',
          refId: String(row.id),
          actor: `user:${userId}`,
          memo: `${address.chain} ${address.address}`,
          movements: [
            {
              ownerType: 'user',
              ownerId: userId,
              accountType: 'coin',
              currencyId: coin.id,
              code: LedgerCode.Freeze,
              available: `-${moneyString(amount)}`,
              frozen: moneyString(amount),
            },
          ],
        },
        m,
      );
      return { withdrawal_id: row.id, duplicate: false };
    });
    this.bus.emit('balance', userId);
    return out;
  }

  /** charge_mention/log3 (own records) and the operator list. */
  async records(q: RecordQueryDto | AdminRecordQueryDto, userId?: number): Promise<Page<ReturnType<typeof recordView>>> {
    const coins = await this.funding.coinMap();
    return records(this.dataSource.getRepository(Withdrawal), q, userId, (r) => recordView(r, coins.get(r.currencyId)?.symbol ?? '', userId === undefined));
  }

  /** Pays out: the frozen amount leaves (101): amount − fee to the outside world, the fee to the exchange. */
  async approve(adminId: number, id: number, dto: ApproveWithdrawalDto) {
    const view = await this.dataSource.transaction(async (m) => {
      const w = await decide(m, 'withdrawals', this.dataSource.getRepository(Withdrawal), id, {
        status: 'passed',
        adminId,
        reason: dto.reason ?? null,
        txHash: dto.tx_hash ?? null,
      });
      const movements: Movement[] = [
        {
          ownerType: 'user',
          ownerId: w.userId,
          accountType: 'coin',
          currencyId: w.currencyId,
          code: LedgerCode.WithdrawalDeduction,
          frozen: `-${moneyString(w.amount)}`,
        },
        {
          ownerType: 'system',
          ownerId: SYSTEM_OWNER_ID,
          accountType: 'external',
          currencyId: w.currencyId,
          code: LedgerCode.WithdrawalDeduction,
          available: moneyString(w.actualAmount),
        },
      ];
      if (money(w.fee).gt(0))
        movements.push({
          ownerType: 'system',
          ownerId: SYSTEM_OWNER_ID,
          accountType: 'fees',
          currencyId: w.currencyId,
          code: LedgerCode.WithdrawalDeduction,
          available: moneyString(w.fee),
        });
      await this.ledger.post(
        { commandId: `withdrawal-approve:${id}`, refType: 'withdrawal', refId: String(id), actor: `admin:${adminId}`, reason: dto.reason, movements },
        m,
      );
      const coin = await this.funding.coin(w.currencyId);
      await this.messages.leave(m, w.userId, 'notice.withdrawal_approved', { amount: moneyString(w.actualAmount), coin: coin.symbol }, `withdrawal:${id}`);
      return recordView(w, coin.symbol, true);
    });
    // After the commit: the owner's screens show the new balance at once.
    this.bus.emit('balance', view.user_id as number);
    return view;
  }

  /** Refuses: exactly the frozen amount goes back to available (902), with the reason shown to the user. */
  async reject(adminId: number, id: number, reason: string) {
    const view = await this.dataSource.transaction(async (m) => {
      const w = await decide(m, 'withdrawals', this.dataSource.getRepository(Withdrawal), id, { status: 'rejected', adminId, reason });
      await this.ledger.post(
        {
          commandId: `withdrawal-reject:${id}`,
          refType: 'withdrawal',
          refId: String(id),
          actor: `admin:${adminId}`,
          reason,
          movements: [
            {
              ownerType: 'user',
              ownerId: w.userId,
              accountType: 'coin',
              currencyId: w.currencyId,
              code: LedgerCode.Unfreeze,
              frozen: `-${moneyString(w.amount)}`,
              available: moneyString(w.amount),
            },
          ],
        },
        m,
      );
      const coin = await this.funding.coin(w.currencyId);
      await this.messages.leave(m, w.userId, 'notice.withdrawal_rejected', { amount: moneyString(w.amount), coin: coin.symbol, reason }, `withdrawal:${id}`);
      return recordView(w, coin.symbol, true);
    });
    // After the commit: the owner's screens show the new balance at once.
    this.bus.emit('balance', view.user_id as number);
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
    reason: w.reason,
    tx_hash: w.txHash,
    created_at: new Date(w.createdAt).toISOString(),
    reviewed_at: w.reviewedAt ? new Date(w.reviewedAt).toISOString() : null,
  };
}
