import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { EventStoreService, isDuplicateCommand } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, moneyString, truncate } from '../../infra/money';
import { REDIS } from '../../infra/redis/redis.module';
import { PricingService } from '../coin-rate/pricing.service';
import { EngineBus } from '../engine/engine-bus';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService } from '../ledger/ledger.service';
import { AccountsService, positive } from '../wallet/accounts.service';

interface Quote {
  quote_id: string;
  user_id: number;
  from_currency_id: number;
  from_symbol: string;
  to_currency_id: number;
  to_symbol: string;
  amount: string;
  /** Units of `to` per unit of `from`, from the venue's last trades, before the fee. */
  rate: string;
  fee: string;
  receive: string;
  expires_at: string;
}

/** Rolls a convert back when the quote's ledger posting was already made by a concurrent convert. */
class AlreadyConverted extends Error {}

/**
 * Flash exchange (route pages/fpjy): convert one coin to another at the current market price.
 * The price is the venue's own last trade of each coin against USDT (DESIGN §1); the desk (a
 * system `treasury` account with a recorded float) takes the other side and keeps a documented
 * fee (FLASH_FEE_RATE, default 0.2% of what is received). A quote holds for FLASH_QUOTE_TTL_SECONDS
 * and can be used once; the quote id is the conversion's idempotency key.
 */
@Injectable()
export class FlashExchangeService implements OnApplicationBootstrap {
  private readonly logger = new Logger('FlashExchange');
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly pricing: PricingService,
    private readonly accounts: AccountsService,
    private readonly events: EventStoreService,
    private readonly bus: EngineBus,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The desk's float, once per coin ever (the command id makes it idempotent): a recorded 900 posting. */
  async onApplicationBootstrap(): Promise<void> {
    const coins = await this.accounts.coins();
    for (const [symbol, amount] of Object.entries(this.config.flashExchange.float)) {
      const coin = coins.find((c) => c.symbol === symbol);
      if (!coin || money(amount).isZero()) continue;
      const r = await this.ledger.post({
        commandId: `treasury-float:${symbol}`,
        refType: 'system-funding',
        refId: `treasury:${symbol}`,
        actor: 'system',
        reason: 'flash exchange desk float (FLASH_FLOAT)',
        movements: [
          { ownerType: 'system', ownerId: SYSTEM_OWNER_ID, accountType: 'treasury', currencyId: coin.id, code: LedgerCode.SystemFunding, available: amount },
          {
            ownerType: 'system',
            ownerId: SYSTEM_OWNER_ID,
            accountType: 'external',
            currencyId: coin.id,
            code: LedgerCode.SystemFunding,
            available: `-${amount}`,
          },
        ],
      });
      if (!r.duplicate) this.logger.log(`desk float: ${amount} ${symbol}`);
    }
  }

  async quote(userId: number, fromId: number, toId: number, rawAmount: string): Promise<Quote> {
    if (fromId === toId) throw new BusinessError(ErrorCode.VALIDATION, 'error.flash_same_coin');
    const [from, to] = await Promise.all([this.accounts.coin(fromId), this.accounts.coin(toId)]);
    const amount = positive(rawAmount);
    const prices = await this.pricing.usdtPrices();
    const pf = prices.get(from.id);
    const pt = prices.get(to.id);
    if (!pf) throw new BusinessError(ErrorCode.PRICE_UNAVAILABLE, undefined, { coin: from.symbol });
    if (!pt) throw new BusinessError(ErrorCode.PRICE_UNAVAILABLE, undefined, { coin: to.symbol });
    const rate = pf.div(pt);
    const gross = money(truncate(amount.times(rate), to.decimals));
    const fee = money(truncate(gross.times(this.config.flashExchange.feeRate), to.decimals));
    const receive = gross.minus(fee);
    if (receive.lte(0)) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
    const ttl = this.config.flashExchange.quoteTtlSeconds;
    const q: Quote = {
      quote_id: randomUUID(),
      user_id: userId,
      from_currency_id: from.id,
      from_symbol: from.symbol,
      to_currency_id: to.id,
      to_symbol: to.symbol,
      amount: moneyString(amount),
      rate: truncate(rate, 12),
      fee: moneyString(fee),
      receive: moneyString(receive),
      expires_at: new Date(Date.now() + ttl * 1000).toISOString(),
    };
    await this.redis.set(`fpjy:quote:${q.quote_id}`, JSON.stringify(q), 'EX', ttl);
    return q;
  }

  /**
   * Uses the quote once: the conversion's command id is the quote id, so a concurrent or later
   * retry finds the first conversion (the event store's unique command id) and answers with it.
   */
  async convert(userId: number, quoteId: string): Promise<Quote & { duplicate: boolean }> {
    const done = await this.converted(userId, quoteId);
    if (done) return { ...done, duplicate: true };
    const raw = await this.redis.get(`fpjy:quote:${quoteId}`);
    const q = raw ? (JSON.parse(raw) as Quote) : undefined;
    if (!q || q.user_id !== userId) throw new BusinessError(ErrorCode.QUOTE_EXPIRED);
    const treasury = (await this.ledger.balancesOf('system', SYSTEM_OWNER_ID)).find((b) => b.accountType === 'treasury' && b.currencyId === q.to_currency_id);
    if (money(treasury?.available ?? '0').lt(q.receive)) throw new BusinessError(ErrorCode.FLASH_UNAVAILABLE);
    try {
      await this.dataSource.transaction(async (m) => {
        const posted = await this.ledger.post(
          {
            commandId: `flash:${quoteId}`,
            refType: 'flash',
            refId: quoteId,
            actor: `user:${userId}`,
            memo: `${q.amount} ${q.from_symbol} > ${q.receive} ${q.to_symbol}`,
            movements: [
              {
                ownerType: 'user',
                ownerId: userId,
                accountType: 'coin',
                currencyId: q.from_currency_id,
                code: LedgerCode.FlashExchangeDeduction,
                available: `-${q.amount}`,
              },
              {
                ownerType: 'system',
                ownerId: SYSTEM_OWNER_ID,
                accountType: 'treasury',
                currencyId: q.from_currency_id,
                code: LedgerCode.FlashExchangeDeduction,
                available: q.amount,
              },
              {
                ownerType: 'system',
                ownerId: SYSTEM_OWNER_ID,
                accountType: 'treasury',
                currencyId: q.to_currency_id,
                code: LedgerCode.FlashExchangeIncrease,
                available: `-${q.receive}`,
              },
              {
                ownerType: 'user',
                ownerId: userId,
                accountType: 'coin',
                currencyId: q.to_currency_id,
                code: LedgerCode.FlashExchangeIncrease,
                available: q.receive,
              },
            ],
          },
          m,
        );
        // A concurrent convert of this quote committed between our first look and here.
        if (posted.duplicate) throw new AlreadyConverted();
        await this.events.append(m, { streamId: `flash:${quoteId}`, metadata: { actor: `user:${userId}` } }, [{ type: 'FlashExchanged', payload: { ...q } }]);
      });
    } catch (err) {
      const first = isDuplicateCommand(err) || err instanceof AlreadyConverted ? await this.converted(userId, quoteId) : undefined;
      if (first) return { ...first, duplicate: true };
      throw err;
    }
    await this.redis.del(`fpjy:quote:${quoteId}`);
    this.bus.emit('balance', userId);
    return { ...q, duplicate: false };
  }

  private async converted(userId: number, quoteId: string): Promise<Quote | undefined> {
    const [row] = await this.dataSource.query(`SELECT payload FROM events WHERE stream_id = $1 AND type = 'FlashExchanged'`, [`flash:${quoteId}`]);
    return row && (row.payload as Quote).user_id === userId ? (row.payload as Quote) : undefined;
  }

  /** The user's conversions, newest first. */
  async history(userId: number, page: number, limit: number) {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT e.payload, e.created_at FROM events e WHERE e.type = 'FlashExchanged' AND (e.payload->>'user_id')::int = $1 ORDER BY e.seq DESC LIMIT $2 OFFSET $3`,
        [userId, limit, (page - 1) * limit],
      ),
      this.dataSource.query(`SELECT COUNT(*)::int AS total FROM events WHERE type = 'FlashExchanged' AND (payload->>'user_id')::int = $1`, [userId]),
    ]);
    return {
      items: (rows as Array<{ payload: Quote; created_at: Date }>).map((r) => ({ ...r.payload, created_at: new Date(r.created_at).toISOString() })),
      total,
      page,
      limit,
    };
  }
}
