import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { FundPasswordGate } from '../../infra/auth/fund-password-gate';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { ConcurrencyError, EventStoreService } from '../../infra/event-store/event-store.service';
import { isUniqueViolation } from '../../infra/database/sql';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { isDecimalString, money, Money, moneyString, truncate, units } from '../../infra/money';
import { REDIS } from '../../infra/redis/redis.module';
import { PricingService } from '../coin-rate/pricing.service';
import { OutboxRelay } from '../engine/outbox-relay.service';
import { coinLeg, refusal, systemLeg, TradeAccountCommands } from '../engine/trade-account-commands';
import { LedgerCode, SYSTEM_OWNER_ID } from '../ledger/ledger-codes';
import { LedgerService, Movement, Posting } from '../ledger/ledger.service';
import { EngineHost } from '../engine/engine-host.service';
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

/** How long a quote is kept after it expires: the window for a retry to find a conversion left unrecorded. */
const QUOTE_KEPT_SECONDS = 3600;
/** How often the engine's owner records conversions left unrecorded, and how old their request must be (the request itself records younger ones). */
const SWEEP_MS = 30_000;
const LEFTOVER_MS = 60_000;

/** How a conversion's stream ends: converted, or refused by the sequencer. */
type FlashOutcome = 'FlashExchanged' | 'FlashRefused';

/** An outcome goes after whatever the stream holds (its request, or nothing for a stream begun before requests were written), once. */
const terminal = (stream: Array<{ type: string; streamVersion: number }>): number | undefined =>
  stream.some((e) => e.type === 'FlashExchanged' || e.type === 'FlashRefused') ? undefined : (stream.at(-1)?.streamVersion ?? 0);

/**
 * Flash exchange (route pages/fpjy): convert one coin to another at the current market price.
 * Only between coins the desk holds a float of (FLASH_FLOAT). The price comes from the venue's own
 * trades of each coin against USDT (DESIGN §1): its last trade, from an enabled market and at most
 * FLASH_MAX_PRICE_AGE_SECONDS old, and its reference (the median by time of the last trade over
 * FLASH_REFERENCE_SECONDS), the worse of the two for the user, and no quote while they are more
 * than FLASH_MAX_DEVIATION apart (deskPrice); the desk (the sequencer's house account `desk`, funded from
 * `treasury` by a recorded transfer) takes the other side and keeps a documented
 * fee (FLASH_FEE_RATE, default 0.2% of what is received). A quote holds for FLASH_QUOTE_TTL_SECONDS
 * and can be used once; the quote id is the conversion's idempotency key.
 */
@Injectable()
export class FlashExchangeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('FlashExchange');
  private sweeper?: NodeJS.Timeout;
  private sweeping = false;
  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: LedgerService,
    private readonly pricing: PricingService,
    private readonly accounts: AccountsService,
    private readonly events: EventStoreService,
    private readonly trading: TradeAccountCommands,
    private readonly outbox: OutboxRelay,
    private readonly host: EngineHost,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rateLimit: RateLimitService,
    private readonly fundPassword: FundPasswordGate,
  ) {}

  /**
   * Once per coin ever (the command ids make it idempotent), FLASH_FLOAT is brought in twice as
   * recorded 900 postings: once as the house's `treasury` float (the options reserve and contracts
   * draw on it), once for the desk: into `treasury`, then moved by a recorded transfer (502/503)
   * through `transit` and the outbox to `desk`, the sequencer's house account that trades
   * against the users' trade accounts.
   */
  async onApplicationBootstrap(): Promise<void> {
    const coins = await this.accounts.coins();
    for (const [symbol, amount] of Object.entries(this.config.flashExchange.float)) {
      const coin = coins.find((c) => c.symbol === symbol);
      if (!coin || money(amount).isZero()) continue;
      const house = (accountType: 'treasury' | 'external' | 'transit', code: LedgerCode, available: string): Movement => ({
        ownerType: 'system',
        ownerId: SYSTEM_OWNER_ID,
        accountType,
        currencyId: coin.id,
        code,
        available,
      });
      const funding = (commandId: string, refId: string, reason: string): Posting => ({
        commandId,
        refType: 'system-funding',
        refId,
        actor: 'system',
        reason,
        movements: [house('treasury', LedgerCode.SystemFunding, amount), house('external', LedgerCode.SystemFunding, `-${amount}`)],
      });
      const treasury = await this.ledger.post(funding(`treasury-float:${symbol}`, `treasury:${symbol}`, 'house float (FLASH_FLOAT)'));
      if (!treasury.duplicate) this.logger.log(`treasury float: ${amount} ${symbol}`);
      const ref = { refType: 'system-funding', refId: `desk:${symbol}`, actor: 'system', reason: 'flash exchange desk float (FLASH_FLOAT)' };
      const funded = await this.dataSource.transaction(async (m) => {
        const r = await this.ledger.post(funding(`desk-funding:${symbol}`, `desk:${symbol}`, ref.reason), m);
        if (r.duplicate) return false;
        await this.ledger.post(
          {
            ...ref,
            commandId: `desk-transfer:${symbol}`,
            movements: [house('treasury', LedgerCode.TransferDeduction, `-${amount}`), house('transit', LedgerCode.TransferDeduction, amount)],
          },
          m,
        );
        await this.outbox.enqueue(m, {
          ...ref,
          commandId: `desk-transfer-in:${symbol}`,
          legs: [systemLeg('transit', coin.id, LedgerCode.TransferIncrease, `-${amount}`), systemLeg('desk', coin.id, LedgerCode.TransferIncrease, amount)],
        });
        return true;
      });
      // Where the sequencer runs, the desk can trade once this returns.
      if (this.host.owner) await this.outbox.applied(`desk-transfer-in:${symbol}`);
      if (funded) this.logger.log(`desk float: ${amount} ${symbol}`);
    }
    await this.host.whenOwner(async () => {
      await this.recordLeftovers();
    });
    this.sweeper = setInterval(() => void this.recordLeftovers().catch((err) => this.logger.warn({ err }, 'flash exchange sweep failed')), SWEEP_MS);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /**
   * Whether the desk converts this coin: only the coins it holds a float of (FLASH_FLOAT). Any other
   * coin's price is made by whoever trades it, and the desk would pay its float out at it.
   */
  private onDesk(symbol: string): boolean {
    const float = this.config.flashExchange.float;
    return Object.hasOwn(float, symbol) && !money(float[symbol]).isZero();
  }

  /**
   * A coin's price for the desk: the `side` of its last trade and its reference. 2211 without a
   * tradable last trade; 2211 "moving too fast" while the last trade stands more than
   * FLASH_MAX_DEVIATION from the reference (a quote at either would be far from where the market
   * has been: the desk waits for it to settle).
   */
  private deskPrice(prices: Map<number, { last: Money; reference: Money }>, coin: { id: number; symbol: string }, side: 'lower' | 'higher'): Money {
    const p = prices.get(coin.id);
    if (!p) throw new BusinessError(ErrorCode.PRICE_UNAVAILABLE, undefined, { coin: coin.symbol });
    if (p.last.minus(p.reference).abs().gt(p.reference.times(this.config.flashMaxDeviation)))
      throw new BusinessError(ErrorCode.PRICE_UNAVAILABLE, 'error.flash_price_unsettled', { coin: coin.symbol });
    return side === 'lower' ? Money.min(p.last, p.reference) : Money.max(p.last, p.reference);
  }

  /** fpjy/coins: the enabled coins the desk converts, in the coins' order (the flash page's pickers). */
  async coins(): Promise<Array<{ currency_id: number; symbol: string; name: string; decimals: number }>> {
    return (await this.accounts.coins())
      .filter((c) => this.onDesk(c.symbol))
      .map((c) => ({ currency_id: c.id, symbol: c.symbol, name: c.name, decimals: c.decimals }));
  }

  async quote(userId: number, fromId: number, toId: number, rawAmount: string): Promise<Quote & { expires_in: number }> {
    if (fromId === toId) throw new BusinessError(ErrorCode.VALIDATION, 'error.flash_same_coin');
    // Each quote is kept in Redis for an hour and its conversion (or refusal) recorded for good: counted per user.
    await this.rateLimit.hit(`flash:user:${userId}`, this.config.rateLimits.flashQuotePerUser);
    // A conversion is a trade (spec §6: a fund password before trading); one set is never removed, so the quote's check holds for its convert.
    await this.fundPassword.require(userId);
    const [from, to] = await Promise.all([this.accounts.coin(fromId), this.accounts.coin(toId)]);
    if (!this.onDesk(from.symbol) || !this.onDesk(to.symbol)) throw new BusinessError(ErrorCode.FLASH_UNAVAILABLE, 'error.currency_invalid');
    const amount = positive(rawAmount);
    // Each coin's last trade (an enabled market's, at most FLASH_MAX_PRICE_AGE_SECONDS old) and its reference (deskPrices).
    const prices = await this.pricing.deskPrices([from.id, to.id], this.config.flashMaxPriceAgeSeconds, this.config.flashReferenceSeconds);
    // What the user gives at the lower of the two, what they get at the higher: a trade printed away
    // from where the market has stood (two accounts of one person, through a thin book) never prices
    // the desk's float in their favour.
    const rate = this.deskPrice(prices, from, 'lower').div(this.deskPrice(prices, to, 'higher'));
    const gross = money(truncate(amount.times(rate), to.decimals));
    const fee = money(truncate(gross.times(this.config.flashExchange.feeRate), to.decimals));
    const receive = gross.minus(fee);
    if (receive.lte(0)) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
    // The conversion's legs must be amounts the sequencer takes (18 integer digits at most), or it
    // would refuse the posting as malformed.
    if (![amount, receive].every((v) => isDecimalString(moneyString(v)))) throw new BusinessError(ErrorCode.VALIDATION, 'error.amount_invalid');
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
    // Kept past its expiry (which convert checks): a retry of a conversion whose process stopped before
    // its record still finds what to record.
    await this.redis.set(`fpjy:quote:${q.quote_id}`, JSON.stringify(q), 'EX', ttl + QUOTE_KEPT_SECONDS);
    // Its lifetime too: a phone counts down from it as the answer comes, whatever its own clock says
    // (against `expires_at`, one 20 s fast saw every quote expired on arrival).
    return { ...q, expires_in: ttl };
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
    if (!q || q.user_id !== userId) {
      // The quote is used up when its conversion is recorded: a concurrent request (a double tap) that
      // looked before that record committed finds it now, and answers with it.
      const since = await this.converted(userId, quoteId);
      if (since) return { ...since, duplicate: true };
      throw new BusinessError(ErrorCode.QUOTE_EXPIRED);
    }
    // Recorded by whichever request gets here first (the record holds this same quote, so it is the
    // answer without reading it back), and the quote is used up.
    const finish = async (duplicate: boolean) => {
      await this.record(q);
      await this.redis.del(`fpjy:quote:${quoteId}`);
      return { ...q, duplicate };
    };
    if (Date.parse(q.expires_at) <= Date.now()) {
      // Expired: converted only by a first request whose process stopped between the conversion and
      // its record (the applied command says so); its retry records it now and answers with it.
      await this.trading.settled(userId);
      if (!(await this.trading.applied(`flash:${quoteId}`))) throw new BusinessError(ErrorCode.QUOTE_EXPIRED);
      return finish(true);
    }
    // The request, durable before any money moves: if this process stops after the conversion and no
    // retry comes, the sweep finds it and records the conversion (recordLeftovers).
    await this.requested(q);
    // No desk check before the command: a retry of a conversion that emptied the desk must still hear it
    // was done. The sequencer checks the desk and keeps a refusal, which names the desk when the user
    // was not short (by the sequencer's figure, or on a process without it by the projected one).
    // One sequencer command, all four legs or none; the quote id is its command id.
    const r = await this.trading.post({
      commandId: `flash:${quoteId}`,
      refType: 'flash',
      refId: quoteId,
      actor: `user:${userId}`,
      memo: `${q.amount} ${q.from_symbol} > ${q.receive} ${q.to_symbol}`,
      // The quote's price holds until it ends: a command journaled later (a forward past its timeout
      // answered 2107, then retried after the quote ended and told 2213) converts nothing.
      notAfter: Date.parse(q.expires_at),
      legs: [
        coinLeg(userId, q.from_currency_id, LedgerCode.FlashExchangeDeduction, `-${q.amount}`),
        systemLeg('desk', q.from_currency_id, LedgerCode.FlashExchangeDeduction, q.amount),
        systemLeg('desk', q.to_currency_id, LedgerCode.FlashExchangeIncrease, `-${q.receive}`),
        coinLeg(userId, q.to_currency_id, LedgerCode.FlashExchangeIncrease, q.receive),
      ],
    });
    // Refused (a retry of a refused conversion hears the same refusal: the sequencer keeps the first result).
    if (r.code !== 'OK') {
      // Final: the sequencer answers this command id with the same refusal for longer than a quote lives.
      await this.appendOnce(q, 'FlashRefused', terminal);
      const deskShort = r.code === 'INSUFFICIENT_BALANCE' && !(await this.trading.shortBeforeHolding(userId, q.from_currency_id, units(q.amount)));
      throw deskShort ? new BusinessError(ErrorCode.FLASH_UNAVAILABLE) : refusal(r.code);
    }
    // A concurrent convert of this quote may record it first, or this is the retry of one whose
    // process stopped between the conversion and its record.
    return finish(!!r.duplicate);
  }

  /** The conversion's request (the first event of its stream: written once however many requests reach here). */
  private async requested(q: Quote): Promise<void> {
    await this.appendOnce(q, 'FlashRequested', () => 0);
  }

  /**
   * The conversion's record, after its request (or first, for a stream begun before requests were
   * written): written once however many requests, and the sweep, reach here. A second writer finds
   * the stream moved on (ConcurrencyError) or the record there, and writes nothing.
   */
  private record(q: Quote): Promise<boolean> {
    return this.appendOnce(q, 'FlashExchanged', terminal);
  }

  /** Appends `type` at the version `at` reads from the stream (undefined: already there); a concurrent writer's append wins. Whether this one wrote it. */
  private async appendOnce(
    q: Quote,
    type: 'FlashRequested' | FlashOutcome,
    at: (stream: Array<{ type: string; streamVersion: number }>) => number | undefined,
  ): Promise<boolean> {
    const streamId = `flash:${q.quote_id}`;
    try {
      return await this.dataSource.transaction(async (m) => {
        const expectedVersion = at(await this.events.readStream(m, streamId));
        if (expectedVersion === undefined) return false;
        await this.events.append(m, { streamId, expectedVersion, metadata: { actor: `user:${q.user_id}` } }, [{ type, payload: { ...q } }]);
        return true;
      });
    } catch (err) {
      if (!(err instanceof ConcurrencyError) && !isUniqueViolation(err)) throw err;
      return false;
    }
  }

  /**
   * Conversions the sequencer applied whose record is missing: the process stopped between the
   * command and its record, and no retry came while the quote was kept. Found from their requests
   * of the last day older than `olderThanMs` (younger ones are their request's to record), recorded
   * from the request's quote. A refused one ended with its refusal (`FlashRefused`); one whose
   * command was never applied (not sent, or the sequencer busy) is checked again by each sweep for a
   * day and otherwise left as it is: no money moved, and nothing is shown. Runs where the sequencer
   * does (its owner). Answers how many it recorded.
   */
  async recordLeftovers(olderThanMs = LEFTOVER_MS): Promise<number> {
    if (this.sweeping || !this.host.settled) return 0;
    this.sweeping = true;
    try {
      const rows: Array<{ payload: Quote }> = await this.dataSource.query(
        `SELECT r.payload FROM events r
         WHERE r.type = 'FlashRequested' AND r.created_at > now() - interval '1 day' AND r.created_at <= now() - make_interval(secs => $1)
           AND NOT EXISTS (SELECT 1 FROM events x WHERE x.stream_id = r.stream_id AND x.type IN ('FlashExchanged', 'FlashRefused'))
         ORDER BY r.seq LIMIT 1000`,
        [olderThanMs / 1000],
      );
      let recorded = 0;
      for (const { payload: q } of rows) {
        await this.trading.settled(q.user_id);
        if ((await this.trading.applied(`flash:${q.quote_id}`)) && (await this.record(q))) recorded++;
      }
      if (recorded) this.logger.warn(`recorded ${recorded} flash exchange(s) left unrecorded by a stopped process`);
      return recorded;
    } finally {
      this.sweeping = false;
    }
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
