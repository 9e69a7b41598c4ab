import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotSentError, OwnConnection } from '../../infra/database/own-connection';
import { moneyString } from '../../infra/money';
import { EngineBus } from '../engine/engine-bus';
import { EngineHost } from '../engine/engine-host.service';
import { MarketInfo, MarketRegistry } from '../engine/market-registry.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';

/** At most this many recorded ticks an audit lists in one stretch (a contract's open to close; an option's open to delivery time, and from it on). */
export const AUDIT_TICKS_MAX = 5000;

/** A recorded mark-price tick as read back from `mark_prices`. */
export interface Tick {
  id: string;
  price: string;
  ts: Date;
}

/**
 * How long a tick insert may take: the server cancels it then (`statement_timeout` on the ticks'
 * own connection, which runs one statement at a time), so one that gave up does not commit after
 * the next (ids commit in order).
 */
const TICK_INSERT_MS = 4000;

/**
 * A sample that reaches the database this long after its time (queued behind slow inserts) is
 * dropped, not written late: the insert itself checks, by the database's clock, when it runs. So
 * every sample commits within SAMPLE_STALE_MS + TICK_INSERT_MS of its time or never, which the
 * options' delivery counts on (STRANDED_AFTER_MS: an option no sample came for is void).
 */
export const SAMPLE_STALE_MS = 10_000;

/** Sample runs waiting for their inserts at most: a run beyond them is dropped at once (the database is not keeping up). */
const SAMPLE_RUNS_MAX = 3;

/** A tick older than this is not "the price now": purchases and market positions are refused. */
const FRESH_TICK_MS = 5000;

export interface MarkTick {
  id: string;
  marketId: number;
  price: string;
  ts: number;
}

/**
 * Samples each market's mark price once a second and records it as a tick with an id (`sample`);
 * a deal at the price now records one too when the market has moved (`deal`). Options deliver on
 * samples only.
 * The mark is the last trade price — a price the venue actually traded at, never a quote or a
 * computed value — so contracts and options settle only on recorded trade prices.
 */
@Injectable()
export class MarkPriceService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MarkPrice');
  private timer?: NodeJS.Timeout;
  private readonly latest = new Map<number, MarkTick>();
  /** The ticks' inserts, one at a time on a connection of their own (opened at the first; only the process holding the books records). */
  private ticks: Pick<OwnConnection, 'query' | 'drain' | 'close'>;
  /** Sample runs whose inserts are not all answered. */
  private samplesWaiting = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
    private readonly host: EngineHost,
    private readonly bus: EngineBus,
  ) {
    this.ticks = new OwnConnection(dataSource, { applicationName: 'kestrel-ticks', connectMs: 5000, statementMs: TICK_INSERT_MS });
    // Closed once the engine has stopped answering `mark` requests, after the inserts sent (each bounded).
    host.whenStopped(async () => {
      await this.ticks.drain();
      await this.ticks.close();
    });
    // The other processes (split roles) deal at this process's price now while it holds the books.
    host.answerMarks((marketId) => {
      const market = registry.byIdOrUndefined(marketId);
      return market ? this.nowHere(market) : Promise.reject(new BusinessError(ErrorCode.MARKET_NOT_FOUND));
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (process.env.MARK_PRICE === 'off') return;
    // Sampled beside the books (the process holding the sequencer; a standby starts when it takes over).
    await this.host.whenOwner(() => {
      if (this.timer) return;
      this.timer = setInterval(() => void this.sample().catch((err) => this.logger.warn({ err }, 'mark price sample failed')), 1000);
      this.timer.unref();
    });
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The latest recorded tick of a market, never one stamped after now. */
  async latestRecorded(marketId: number): Promise<Tick | undefined> {
    const [row] = await this.dataSource.query(
      'SELECT id::text, price::text, ts FROM mark_prices WHERE market_id = $1 AND ts <= $2 ORDER BY ts DESC, mark_prices.id DESC LIMIT 1',
      [marketId, new Date()],
    );
    return row;
  }

  /** The highest id of a market's recorded ticks, whatever their times ('0' before any): every tick recorded so far has an id at most this. */
  async newestTickId(marketId: number): Promise<string> {
    const [row] = await this.dataSource.query('SELECT COALESCE(MAX(id), 0)::text AS id FROM mark_prices WHERE market_id = $1', [marketId]);
    return row.id as string;
  }

  /** A recorded tick by its id. */
  async byId(id: string): Promise<Tick | undefined> {
    const [tick] = await this.dataSource.query('SELECT id::text, price::text, ts FROM mark_prices WHERE id = $1', [id]);
    return tick;
  }

  /** The latest recorded tick if it is fresh, else "no market price yet" (2211). */
  async fresh(market: MarketInfo): Promise<Tick> {
    const tick = await this.latestRecorded(market.id);
    if (!tick || Date.now() - new Date(tick.ts).getTime() > FRESH_TICK_MS)
      throw new BusinessError(ErrorCode.PRICE_UNAVAILABLE, undefined, { coin: market.base.symbol });
    return tick;
  }

  /**
   * Refuses (2211, as `fresh`) unless the market's price is being sampled: a sample recorded in the
   * last FRESH_TICK_MS. An option delivers on a sample only, so one bought while none are taken (the
   * sampler off or failing, ticks recorded by deals alone) could only end void, its fee kept.
   */
  async sampling(market: MarketInfo): Promise<void> {
    const now = Date.now();
    const [row] = await this.dataSource.query(`SELECT 1 FROM mark_prices WHERE market_id = $1 AND source = 'sample' AND ts > $2 AND ts <= $3 LIMIT 1`, [
      market.id,
      new Date(now - FRESH_TICK_MS),
      new Date(now),
    ]);
    if (!row) throw new BusinessError(ErrorCode.PRICE_UNAVAILABLE, undefined, { coin: market.base.symbol });
  }

  /**
   * The price now, to open or close a position or buy an option at: the last trade price, recorded
   * as a tick first when the market traded away from the latest recorded one (else a trader who saw
   * the move on the live feed could still deal at the price the market had left, up to a second
   * earlier). Read and recorded by the process that holds the books: an api process (split roles)
   * asks it over the command stream, and a failure there refuses the deal (it never falls back to an
   * older tick). A recorded tick with an id, and refused (2211) when there is none fresh.
   */
  async now(market: MarketInfo): Promise<Tick> {
    const tick = await this.host.markFromOwner(market.id, () => this.nowHere(market));
    // Over the command stream the time comes as JSON text.
    return { ...tick, ts: new Date(tick.ts) };
  }

  /** `now` in the process that holds the books. */
  private async nowHere(market: MarketInfo): Promise<Tick> {
    const recorded = await this.fresh(market);
    const last = this.host.lastTradePrice(market.id);
    if (last === undefined) return recorded;
    const price = moneyString(market.engine.ticksToPrice(last));
    if (price === moneyString(recorded.price)) return recorded;
    const tick = await this.record(market, price, Math.max(Date.now(), new Date(recorded.ts).getTime()), 'deal').catch((err: unknown) => {
      // Not written (the ticks' connection closed for good or unreachable, an insert cancelled past
      // its bound): no deal at an unrecorded price; the caller may retry.
      if (!(err instanceof NotSentError)) this.logger.warn({ err }, `the tick of a deal on ${market.symbol} was not written`);
      throw new BusinessError(ErrorCode.MARKET_BUSY);
    });
    this.bus.emit('mark', [market.id]);
    return { id: tick.id, price, ts: new Date(tick.ts) };
  }

  current(marketId: number): MarkTick | undefined {
    return this.latest.get(marketId);
  }

  /**
   * One sample of every market, all stamped `now` with the prices read at `now`, before any insert
   * waits: a tick carries the price at its time (before, each market's price was read after the
   * previous market's insert, up to seconds later, so an option due at `now` delivered at a later
   * price). A run that overlaps the next (a slow insert) is harmless: each reads its own time's
   * prices, and the inserts go one at a time (record). A run that finds SAMPLE_RUNS_MAX waiting is
   * dropped whole (the database is not keeping up; a late one would be dropped anyway).
   */
  async sample(now = Date.now()): Promise<MarkTick[]> {
    if (this.samplesWaiting >= SAMPLE_RUNS_MAX)
      throw new Error(`the sample of ${new Date(now).toISOString()} was dropped: ${this.samplesWaiting} earlier ones wait for the database`);
    const prices: Array<[MarketInfo, string]> = [];
    for (const m of this.registry.all()) {
      const last = this.host.lastTradePrice(m.id);
      if (last !== undefined) prices.push([m, moneyString(m.engine.ticksToPrice(last))]);
    }
    this.samplesWaiting++;
    const written = await Promise.allSettled(prices.map(([m, price]) => this.record(m, price, now, 'sample'))).finally(() => this.samplesWaiting--);
    const ticks = written.flatMap((w) => (w.status === 'fulfilled' ? [w.value] : []));
    if (ticks.length)
      this.bus.emit(
        'mark',
        ticks.map((k) => k.marketId),
      );
    const failed = written.find((w): w is PromiseRejectedResult => w.status === 'rejected');
    if (failed) throw failed.reason;
    return ticks;
  }

  /**
   * Records a tick. One insert at a time in this process (the sampler's and the deals' ticks are
   * both written here, by the process holding the books, on a connection of their own that runs
   * one statement at a time, each bounded by TICK_INSERT_MS): their ids then commit in order, and a
   * reader that follows ticks by id (the contract watcher's cursor) never passes one that commits
   * late. A sample too late for the database (SAMPLE_STALE_MS, by its clock against the sampler's:
   * the same host's, or NTP's) is dropped; a deal's tick never is.
   */
  private async record(m: MarketInfo, price: string, now: number, source: 'sample' | 'deal'): Promise<MarkTick> {
    // Fenced as the journal's writes are: a price read from books this process no longer owns (it
    // was paused past its lease, and another engine has taken over) is never recorded.
    const token = this.host.fencingToken();
    const fresh = `($4::varchar = 'deal' OR clock_timestamp() <= to_timestamp($3::float8 / 1000.0) + $5::int * interval '1 millisecond')`;
    const {
      rows: [row],
    } = await this.ticks.query<{ id: string }>(
      token === undefined
        ? `INSERT INTO mark_prices (market_id, price, ts, source)
           SELECT $1::int, $2::numeric, to_timestamp($3::float8 / 1000.0), $4::varchar WHERE ${fresh}
           RETURNING id::text`
        : `INSERT INTO mark_prices (market_id, price, ts, source)
           SELECT $1::int, $2::numeric, to_timestamp($3::float8 / 1000.0), $4::varchar FROM engine_lease
            WHERE name = 'engine' AND token = $6 AND ${fresh} FOR SHARE
           RETURNING id::text`,
      token === undefined ? [m.id, price, now, source, SAMPLE_STALE_MS] : [m.id, price, now, source, SAMPLE_STALE_MS, token],
      token === undefined ? 'mark-tick' : 'mark-tick-fenced',
    );
    if (!row)
      throw new Error(
        `the ${source} of ${m.symbol} at ${new Date(now).toISOString()} was dropped: ${
          source === 'sample' ? `it reached the database more than ${SAMPLE_STALE_MS} ms after its time, or ` : ''
        }this process no longer holds the engine's lease (fencing token ${token})`,
      );
    const tick = { id: row.id, marketId: m.id, price, ts: now };
    this.latest.set(m.id, tick);
    return tick;
  }
}
