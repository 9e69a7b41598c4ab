import { Inject, Injectable } from '@nestjs/common';
import type { CandleData, TickerData } from '@kestrel/contracts';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { REDIS } from '../../infra/redis/redis.module';
import { money, moneyString, truncate } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { EngineHost } from '../engine/engine-host.service';
import { MarketInfo, MarketRegistry } from '../engine/market-registry.service';
import { RequestPeriod, storedPeriod } from './periods';

/** The ticker shape is part of the socket contract: one definition for HTTP and push. */
export type Ticker = TickerData;

export type Candle = CandleData;

/** A `klines` row read with its time in Unix seconds and its figures as text. */
export interface CandleRow {
  time: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

/** A candle as the API and the feed send it, from its row. */
export function candleOf(r: CandleRow): Candle {
  return {
    time: Number(r.time),
    open: moneyString(r.open),
    high: moneyString(r.high),
    low: moneyString(r.low),
    close: moneyString(r.close),
    volume: moneyString(r.volume),
  };
}

/** The most depth levels anyone can ask for (DepthQueryDto), and what the book's owner shares with api processes. */
export const MAX_DEPTH_LEVELS = 100;
type Levels = { bids: Array<{ price: number; qty: number }>; asks: Array<{ price: number; qty: number }> };

const decimals = (step: string) => (step.includes('.') ? step.split('.')[1].length : 0);

/** Read side of market data: tickers, trades, candles, depth, market list. Everything derives from trades and the book. */
@Injectable()
export class MarketDataService {
  private tickerCache?: { at: number; value: Ticker[] };
  /** Bumped on each invalidation: a read that began before one is answered but not kept (it may hold the figures before the trade). */
  private tickerGeneration = 0;
  /** Split roles, on the books' owner: when each market's book was last shared (`performance.now()`). */
  private readonly sharedAt = new Map<number, number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
    private readonly host: EngineHost,
    bus: EngineBus,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // New trades make the cached tickers stale at once, and again once the read tables have them.
    const invalidate = () => {
      this.tickerCache = undefined;
      this.tickerGeneration++;
    };
    bus.on('trades', invalidate);
    bus.on('projected', invalidate);
  }

  markets() {
    return this.registry.all().map((m) => ({
      symbol: m.symbol,
      base: m.base.symbol,
      quote: m.quote.symbol,
      tick_size: m.tickSize,
      lot_size: m.lotSize,
      min_qty: m.minQty,
      price_decimals: decimals(m.tickSize),
      qty_decimals: decimals(m.lotSize),
      maker_fee: m.makerFee,
      taker_fee: m.takerFee,
    }));
  }

  /** Rolling 24 h statistics from the 1-minute candles; cached up to a second, dropped on new trades. */
  async tickers(fresh = false): Promise<Ticker[]> {
    if (!fresh && this.tickerCache && Date.now() - this.tickerCache.at < 1000) return this.tickerCache.value;
    const generation = this.tickerGeneration;
    const [stats, lasts] = await Promise.all([
      this.dataSource.query(
        `SELECT market_id, (array_agg(open ORDER BY open_time))[1]::text AS open, MAX(high)::text AS high, MIN(low)::text AS low,
                SUM(volume)::text AS volume, SUM(quote_volume)::text AS quote_volume
         FROM klines WHERE period = '1min' AND open_time >= now() - interval '24 hours' GROUP BY market_id`,
      ),
      // The newest trade of each market, one primary-key probe each (DISTINCT ON would scan every trade).
      this.dataSource.query(
        `SELECT m.id AS market_id, t.price::text FROM unnest($1::int[]) m(id)
         CROSS JOIN LATERAL (SELECT price FROM trades WHERE market_id = m.id ORDER BY trade_id DESC LIMIT 1) t`,
        [this.registry.all().map((m) => m.id)],
      ),
    ]);
    const statBy = new Map<number, { open: string; high: string; low: string; volume: string; quote_volume: string }>(
      stats.map((s: { market_id: number }) => [s.market_id, s]),
    );
    const lastBy = new Map<number, string>(lasts.map((l: { market_id: number; price: string }) => [l.market_id, l.price]));
    const value = this.registry.all().map((m) => this.ticker(m, statBy.get(m.id), lastBy.get(m.id)));
    if (generation === this.tickerGeneration) this.tickerCache = { at: Date.now(), value };
    return value;
  }

  private ticker(
    m: MarketInfo,
    s: { open: string; high: string; low: string; volume: string; quote_volume: string } | undefined,
    last: string | undefined,
  ): Ticker {
    const open = s?.open;
    const change = open && last && !money(open).isZero() ? truncate(money(last).minus(open).div(open).times(100), 2) : '0';
    return {
      symbol: m.symbol,
      base: m.base.symbol,
      quote: m.quote.symbol,
      last: last ? moneyString(last) : null,
      change_pct: change,
      open_24h: open ? moneyString(open) : null,
      high: s ? moneyString(s.high) : last ? moneyString(last) : null,
      low: s ? moneyString(s.low) : last ? moneyString(last) : null,
      volume: s ? moneyString(s.volume) : '0',
      quote_volume: s ? moneyString(s.quote_volume) : '0',
    };
  }

  /** The spec's quotation list: tickers grouped by quote currency. */
  async quotation(): Promise<Array<{ quote: string; markets: Ticker[] }>> {
    const groups = new Map<string, Ticker[]>();
    for (const t of await this.tickers()) groups.set(t.quote, [...(groups.get(t.quote) ?? []), t]);
    return [...groups].map(([quote, markets]) => ({ quote, markets }));
  }

  async deals(symbol: string, limit: number) {
    const m = this.registry.get(symbol);
    const rows = await this.dataSource.query(
      `SELECT trade_id::text, price::text, quantity::text, taker_side, executed_at FROM trades WHERE market_id = $1 ORDER BY trades.trade_id DESC LIMIT $2`,
      [m.id, limit],
    );
    return rows.map((r: { trade_id: string; price: string; quantity: string; taker_side: string; executed_at: Date }) => ({
      trade_id: r.trade_id,
      price: moneyString(r.price),
      quantity: moneyString(r.quantity),
      side: r.taker_side,
      time: new Date(r.executed_at).getTime(),
    }));
  }

  /** Candles in ascending time; `from`/`to` in Unix seconds (inclusive), the newest `limit` of them. */
  async candles(symbol: string, period: RequestPeriod, from: number | undefined, to: number | undefined, limit: number): Promise<Candle[]> {
    const m = this.registry.get(symbol);
    const rows = await this.dataSource.query(
      `SELECT EXTRACT(EPOCH FROM open_time)::bigint AS time, open::text, high::text, low::text, close::text, volume::text FROM klines
       WHERE market_id = $1 AND period = $2 AND ($3::bigint IS NULL OR open_time >= to_timestamp($3)) AND ($4::bigint IS NULL OR open_time <= to_timestamp($4))
       ORDER BY open_time DESC LIMIT $5`,
      [m.id, storedPeriod(period), from ?? null, to ?? null, limit],
    );
    return rows.reverse().map(candleOf);
  }

  /** Aggregated book levels as decimal strings: best first on each side. */
  async depth(symbol: string, levels: number) {
    const m = this.registry.get(symbol);
    const d = await this.levels(m.id, levels);
    const side = (ls: Array<{ price: number; qty: number }>) =>
      ls.map((l) => [moneyString(m.engine.ticksToPrice(l.price)), moneyString(m.engine.lotsToQty(l.qty))]);
    return { symbol: m.symbol, bids: side(d.bids), asks: side(d.asks) };
  }

  /**
   * The book's top levels: this process's own book, or on an api process of the split roles the one
   * its owner shared. Not known (2105) while there is no sequencer here (a rebuild after a failure,
   * a replay at start) or, on an api process, when nothing was shared within SHARED_DEPTH_TTL_LEASES
   * leases (no engine holds the books, or it cannot reach Redis): not known is not an empty book (a
   * subscribe's snapshot is asked again; the push follows the rebuild).
   */
  private async levels(marketId: number, levels: number): Promise<Levels> {
    const book = this.host.book(marketId);
    if (book) return book.depth(levels);
    const raw = this.config.engine.transport === 'redis' ? await this.redis.get(`depth:${marketId}`) : null;
    if (!raw) throw new BusinessError(ErrorCode.MARKET_BUSY);
    const all = JSON.parse(raw) as Levels;
    return { bids: all.bids.slice(0, levels), asks: all.asks.slice(0, levels) };
  }

  /**
   * Split roles: the book's owner shares a changed book's top levels with the api processes (read by
   * `depth`), fenced by its lease's token and kept for SHARED_DEPTH_TTL_LEASES leases: a write of an
   * older holder (paused, cut off) never replaces a newer holder's, and a book nobody refreshes
   * (the engine gone, no take-over yet) expires instead of being served as current for ever.
   * False when nothing was written (not the holder now, or fenced).
   */
  async shareDepth(marketId: number): Promise<boolean> {
    const book = this.host.book(marketId);
    const token = this.host.fencingToken();
    if (!book || token === undefined || this.config.engine.transport !== 'redis') return false;
    const ttl = this.config.engine.leaseMs * SHARED_DEPTH_TTL_LEASES;
    const written = await this.redis.eval(FENCED_SET, 2, `depth:${marketId}`, 'depth-fence', token, JSON.stringify(book.depth(MAX_DEPTH_LEVELS)), ttl);
    if (written !== 1) return false;
    this.sharedAt.set(marketId, performance.now());
    return true;
  }

  /** Split roles, on the books' owner: shares again every book not shared for a third of a lease, so a quiet book does not expire. */
  async refreshSharedDepth(): Promise<void> {
    const due = performance.now() - this.config.engine.leaseMs / 3;
    await Promise.all(this.registry.all().map((m) => ((this.sharedAt.get(m.id) ?? -Infinity) <= due ? this.shareDepth(m.id) : undefined)));
  }
}

/** How long a shared book lives without a refresh, in lease lengths (ENGINE_LEASE_MS): past a take-over's wait, then unknown. */
export const SHARED_DEPTH_TTL_LEASES = 2;

/**
 * KEYS: the book's key, the fence's; ARGV: the writer's lease token, the levels, the book's life in ms.
 * Written unless a higher token has written before; the fence lives ten times the book's life (a
 * database restored with lower tokens shares again after that).
 */
const FENCED_SET = `
local fence = tonumber(redis.call('GET', KEYS[2]) or '0')
local token = tonumber(ARGV[1])
if token < fence then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', tonumber(ARGV[3]) * 10)
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;
