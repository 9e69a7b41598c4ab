import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { hashPassword } from '../../infra/auth/password';
import { APP_CONFIG, AppConfig, intBetween } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { money, Money, moneyString, unitsString } from '../../infra/money';
import { CoinTradeService } from '../coin-trade/coin-trade.service';
import { EngineHost } from '../engine/engine-host.service';
import { MarketInfo, MarketRegistry } from '../engine/market-registry.service';
import { coinLeg, systemLeg, TradeAccountCommands } from '../engine/trade-account-commands';
import { LedgerCode } from '../ledger/ledger-codes';
import { GbmPrice } from './gbm';
import { mulberry32, secureRandom } from './prng';

/**
 * The markets the simulator makes, and where each starts when it has never traded (near real-world
 * levels). Only these: a market listed later (a new coin's) trades on its users' orders alone, at
 * no invented price, and its coin's supply stays what was issued.
 */
const START_PRICE: Record<string, number> = { 'BTC/USDT': 91000, 'ETH/USDT': 3100 };
/** Float per account, brought in with recorded system-funding events (code 900). */
const FLOAT: Record<string, string> = { USDT: '2000000', BTC: '20', ETH: '400' };
const LEVELS = 8;
const LEVEL_STEP = 0.0004; // 4 bp between quote levels
const HALF_SPREAD = 0.0003;
/** The simulator's clock: one step of the reference price per tick. */
const TICK_MS = intBetween('MARKET_SIMULATOR_TICK_MS', 250, 10, 60_000);
const REQUOTE_EVERY_MS = 5000;
/** A tick running longer than this is logged (a stalled simulator leaves the markets still). */
const SLOW_TICK_MS = 5000;
/** A slow tick is logged again this often while it runs (with the sequencer's state each time: does it move?). */
const SLOW_TICK_AGAIN_MS = 15_000;
/** Chance of a taker order on each tick (about two trades a second per market at the defaults). */
const TAKER_PROBABILITY = 0.5;
/** How far from the reference the taker may trade: the maker's outermost quote level. */
export const TAKER_BAND = HALF_SPREAD + (LEVELS - 1) * LEVEL_STEP;

interface SimMarket {
  market: MarketInfo;
  gbm: GbmPrice;
  rand: () => number;
  quotes: string[];
  ticks: number;
}

/**
 * Liquidity for a fresh install (DESIGN §7): a market-maker account quoting layered orders around
 * a GBM reference price (unpredictable unless MARKET_SIMULATOR_SEED fixes it), and a taker account
 * trading occasionally against the book. Both are ordinary accounts (status `system`, no login)
 * funded by recorded system events; they place orders through the same service and engine path as
 * users and can touch no other account.
 */
@Injectable()
export class SimulatorService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Simulator');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** When the tick in flight started and what it is doing. */
  private tickStarted = 0;
  private stage = '';
  /** When (ms into the running tick) a slow tick is logged next. */
  private slowLogAt = SLOW_TICK_MS;
  private markets: SimMarket[] = [];
  private makerId = 0;
  private takerId = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
    private readonly host: EngineHost,
    private readonly trade: CoinTradeService,
    private readonly trading: TradeAccountCommands,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Runs beside the books' owner only (EngineHost registers its books before this hook).
    if (!this.config.marketSimulator) return;
    await this.host.whenOwner(() => this.start());
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  async start(): Promise<void> {
    this.makerId = await this.account('market-maker');
    this.takerId = await this.account('market-taker');
    const seed = simulatorSeed();
    this.markets = this.registry
      .all()
      .filter((market) => START_PRICE[market.symbol] !== undefined)
      .map((market) => {
        // Unseeded (production): a CSPRNG of its own per market, so public order sizes reveal no state to predict prices from.
        const rand = seed === undefined ? secureRandom() : mulberry32(seed + market.id);
        const last = this.host.lastTradePrice(market.id);
        const start = last !== undefined ? Number(market.engine.ticksToPrice(last)) : START_PRICE[market.symbol];
        return { market, rand, gbm: new GbmPrice(start, 0.8, rand), quotes: [], ticks: 0 };
      });
    // Quotes left by a previous run are stale: withdraw them (one not withdrawn now is tried again at its market's requote).
    const stale: Array<{ id: string; market_id: number }> = await this.dataSource.query(
      `SELECT id::text, market_id FROM orders WHERE user_id = $1 AND status = 'waiting'`,
      [this.makerId],
    );
    const left = new Set(await this.cancelQuotes(stale.map((o) => o.id)));
    for (const o of stale) if (left.has(o.id)) this.markets.find((s) => s.market.id === o.market_id)?.quotes.push(o.id);
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => {
      // Only beside the sequencer (a process that stepped down stops quoting; the new holder runs its own).
      if (this.running) return this.watch();
      if (!this.host.owner) return;
      this.tickStarted = Date.now();
      this.running = this.tick().finally(() => (this.running = undefined));
    }, TICK_MS);
    this.timer.unref();
    this.logger.log(
      `simulating ${this.markets.map((s) => s.market.symbol).join(', ')} (maker #${this.makerId}, taker #${this.takerId}, ${seed !== undefined ? `seed ${seed} from MARKET_SIMULATOR_SEED` : 'a secure random source'})`,
    );
    if (seed !== undefined)
      this.logger.warn('MARKET_SIMULATOR_SEED is set: the reference prices are predictable from it (tests and demos only, never production)');
  }

  /** A tick still running this long (the markets stand still meanwhile) is logged, with what it waits for, and again while it runs. */
  private watch(): void {
    const ms = Date.now() - this.tickStarted;
    if (ms < this.slowLogAt) return;
    if (this.slowLogAt === SLOW_TICK_MS)
      void this.running?.finally(() => {
        this.logger.warn(`the slow simulator tick ended after ${Date.now() - this.tickStarted} ms`);
        this.slowLogAt = SLOW_TICK_MS;
      });
    this.slowLogAt = ms + SLOW_TICK_AGAIN_MS;
    this.logger.warn(
      `a simulator tick has been running for ${ms} ms (${this.stage}); no quotes or trades meanwhile; the sequencer: ${this.host.pipelineState()}`,
    );
  }

  /** One tick of market life: move the reference, requote now and then, maybe take. */
  async tick(): Promise<void> {
    for (const s of this.markets) {
      try {
        s.gbm.step(TICK_MS / 1000);
        this.stage = `${s.market.symbol} requote`;
        if (s.ticks++ % Math.max(1, Math.round(REQUOTE_EVERY_MS / TICK_MS)) === 0) await this.requote(s);
        this.stage = `${s.market.symbol} take`;
        if (s.rand() < TAKER_PROBABILITY) await this.take(s);
      } catch (err) {
        this.logger.warn({ err }, `${s.market.symbol}: simulator step failed`);
      }
    }
  }

  private async requote(s: SimMarket): Promise<void> {
    this.stage = `${s.market.symbol} requote: cancelling ${s.quotes.length} quotes`;
    s.quotes = await this.cancelQuotes(s.quotes);
    this.stage = `${s.market.symbol} requote: float`;
    await this.topUp(this.makerId, s.market);
    this.stage = `${s.market.symbol} requote: placing quotes`;
    const ref = s.gbm.price;
    const orders: Array<Promise<unknown>> = [];
    const placed: string[] = [];
    for (let i = 0; i < LEVELS; i++) {
      const offset = HALF_SPREAD + i * LEVEL_STEP;
      // Deeper levels hold more size (a power law), as on real books.
      const size = this.size(s, Math.pow(1 + i, 0.8));
      for (const side of ['buy', 'sell'] as const) {
        const price = this.price(s.market, ref * (side === 'buy' ? 1 - offset : 1 + offset));
        orders.push(
          this.trade
            .place(this.makerId, { symbol: s.market.symbol, side, type: 'limit', price, quantity: size })
            .then((o) => o.status === 'waiting' && placed.push(o.order_id))
            .catch(() => undefined),
        );
      }
    }
    await Promise.all(orders);
    s.quotes.push(...placed);
  }

  /** Cancels the maker's quotes; answers those that may still rest (a cancel refused, e.g. SEQUENCER_BEHIND), to try again. */
  private async cancelQuotes(ids: string[]): Promise<string[]> {
    const left: string[] = [];
    await Promise.all(
      ids.map((id) =>
        this.trade.cancel(this.makerId, id).catch((err: unknown) => {
          const gone = err instanceof BusinessError && (err.code === ErrorCode.ORDER_CLOSED || err.code === ErrorCode.ORDER_NOT_FOUND);
          if (!gone) left.push(id);
        }),
      ),
    );
    return left;
  }

  private async take(s: SimMarket): Promise<void> {
    await this.topUp(this.takerId, s.market);
    const side = s.rand() < 0.5 ? 'buy' : 'sell';
    const quantity = this.size(s, 0.6);
    // Never beyond the band the maker quotes around the reference (its outermost level): when its
    // quotes on one side have been taken, the house's taker does not sweep users' orders further
    // and print a spike of its own making (it went up to 1 %, enough to liquidate a 100× position
    // or decide an option on the recorded mark).
    // (A sell's bound rounded up to a tick, a buy's down: inside the band.)
    const worst =
      side === 'buy'
        ? this.price(s.market, s.gbm.price * (1 + TAKER_BAND))
        : moneyString(new Money(s.gbm.price * (1 - TAKER_BAND)).div(s.market.tickSize).ceil().times(s.market.tickSize));
    await this.trade.place(this.takerId, { symbol: s.market.symbol, side, type: 'market', quantity, price: worst }).catch(() => undefined);
  }

  /** A random order size worth roughly 100–2,000 USDT times `scale`, in whole lots. */
  private size(s: SimMarket, scale: number): string {
    const notional = (100 + s.rand() * 1900) * scale;
    return moneyString(this.floorTo(new Money(notional / s.gbm.price), s.market.lotSize));
  }

  private price(market: MarketInfo, value: number): string {
    return moneyString(this.floorTo(new Money(value), market.tickSize));
  }

  private floorTo(value: Money, step: string): Money {
    return value.div(step).floor().times(step);
  }

  /** Creates (once) a simulator account: no password anyone knows, status `system` so it cannot log in. */
  private async account(name: string): Promise<number> {
    const email = `${name}@simulator.kestrel`;
    const [existing] = await this.dataSource.query('SELECT id FROM users WHERE email = $1', [email]);
    if (existing) return existing.id;
    const secret = await hashPassword(randomBytes(32).toString('base64url'));
    const [row] = await this.dataSource.query(
      `INSERT INTO users (account, email, nickname, password_hash, fund_password_hash, invite_code, status) VALUES ($1, $1, $2, $3, $3, $4, 'system')
       ON CONFLICT DO NOTHING RETURNING id`,
      [email, name, secret, randomBytes(6).toString('hex').slice(0, 12).toUpperCase()],
    );
    if (row) return row.id;
    const [again] = await this.dataSource.query('SELECT id FROM users WHERE email = $1', [email]);
    return again.id;
  }

  /** Keeps the account's float: when a currency falls under half of it, a recorded 900 posting (a sequencer command) refills it. */
  private async topUp(userId: number, market: MarketInfo): Promise<void> {
    for (const coin of [market.base, market.quote]) {
      const target = FLOAT[coin.symbol] ?? '1000';
      const b = this.trading.coinBalance(userId, coin.id);
      const total = money(unitsString(b.available + b.frozen));
      if (total.greaterThanOrEqualTo(money(target).div(2))) continue;
      const amount = moneyString(money(target).minus(total));
      const ref = `${userId}:${coin.id}:${Date.now()}`;
      await this.trading.post({
        commandId: `sim-funding:${ref}`,
        refType: 'system-funding',
        refId: ref,
        actor: 'simulator',
        reason: 'market simulator float',
        legs: [coinLeg(userId, coin.id, LedgerCode.SystemFunding, amount), systemLeg('external', coin.id, LedgerCode.SystemFunding, `-${amount}`)],
      });
    }
  }
}

/**
 * The seed of the reference prices, if one is configured. Unset (production): none; each market
 * draws from the operating system's CSPRNG (`secureRandom`), so nobody — operators included, nor
 * anyone reading the public order sizes — can know the coming prices, on which options and
 * contracts settle. MARKET_SIMULATOR_SEED (an integer) fixes the path with mulberry32, whose 32-bit
 * state is recoverable from those sizes: for tests and demos only.
 */
export function simulatorSeed(raw = process.env.MARKET_SIMULATOR_SEED, production = process.env.NODE_ENV === 'production'): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw new Error(`MARKET_SIMULATOR_SEED must be a whole number (at most 9 digits), not "${raw}"`);
  // Whoever knows the seed knows every coming price, and so every option's and contract's outcome:
  // a production start refuses it (before, it only logged a warning).
  if (production) throw new Error('MARKET_SIMULATOR_SEED makes the prices predictable: it is for tests and demos, and refused when NODE_ENV=production');
  return Number(raw);
}
