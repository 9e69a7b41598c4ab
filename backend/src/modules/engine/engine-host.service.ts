import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BookSnapshot, EngineEvent, EventCollector, FastBook, OrderBook } from '@kestrel/matching-engine';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { EngineBus, OrderUpdate } from './engine-bus';
import { JournalEntry, journalStream, toCommand } from './journal';
import { MarketInfo, MarketRegistry } from './market-registry.service';
import { SettlementService } from './settlement.service';

/** What the API asks of the host. Amounts are already converted and checked by the caller. */
export interface PlaceRequest {
  userId: number;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  /** Ticks: the limit price, or a market order's worst price (0 = none). */
  price: number;
  /** Lots (0 for a market buy by quote amount). */
  qty: number;
  /** Quote units for a market buy by amount. */
  quoteBudget: number;
  /** Decimal strings for the order row. */
  row: { price: string | null; quantity: string | null; quoteAmount: string | null };
  freeze: { currencyId: number; amount: string };
  clientOrderId: string | null;
}

export interface PlaceOutcome {
  orderId: string;
  /** The order's state after its batch settled (absent for a duplicate). */
  order?: OrderUpdate;
  /** True when this client order id had been used before: the earlier order is returned, nothing new was placed. */
  duplicate: boolean;
}

/** The row of an order being cancelled, as read when the cancel was journaled (for the answer). */
export interface CancelledOrderRow {
  id: string;
  user_id: number;
  market_id: number;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: string | null;
  quantity: string | null;
  quote_amount: string | null;
  client_order_id: string | null;
  created_at: Date;
  status: string;
}

export interface CancelOutcome {
  row: CancelledOrderRow;
  /** The order's state after its batch settled. */
  update?: OrderUpdate;
}

type Finish = (orders: Map<string, OrderUpdate>) => void;

type Pending =
  | { kind: 'place'; req: PlaceRequest; resolve: (o: PlaceOutcome) => void; reject: (e: unknown) => void }
  | { kind: 'cancel'; userId: number; orderId: number; resolve: (o: CancelOutcome) => void; reject: (e: unknown) => void };

interface Runtime {
  market: MarketInfo;
  book: OrderBook;
  sink: EventCollector;
  /** Stream version of the last journaled command applied to the book. */
  version: number;
  queue: Pending[];
  flushing: boolean;
  sinceSnapshot: number;
  snapshotAt: number;
  lastTradePrice?: number;
}

const MAX_BATCH = Number(process.env.ENGINE_MAX_BATCH ?? 500);
const SNAPSHOT_EVERY_COMMANDS = Number(process.env.ENGINE_SNAPSHOT_EVERY ?? 5000);
const SNAPSHOT_EVERY_MS = 60_000;
const REPLAY_CHUNK = 2000;


/**
 * Owns one order book per market (DESIGN §6). Commands are journaled in the event store before
 * they are matched — many per transaction (group commit: whatever arrives while the previous
 * batch commits forms the next batch) — then matched in journal order and settled. On start
 * the host restores the latest snapshot and replays the journal after it.
 */
@Injectable()
export class EngineHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EngineHost');
  private readonly runtimes = new Map<number, Runtime>();
  private closed = false;
  private lockRunner?: QueryRunner;

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
    private readonly settlement: SettlementService,
    private readonly bus: EngineBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.registry.load();
    if (!(await this.claimOwnership())) return;
    await this.recover();
  }

  /**
   * One owner per book: only ROLE=all takes the books, and only if it gets the session-level
   * advisory lock, held on a dedicated connection for the life of the process. Another process
   * answers order commands with "market busy" instead of matching a second copy of the book.
   */
  private async claimOwnership(): Promise<boolean> {
    const role = process.env.ROLE ?? 'all';
    if (role !== 'all') return false;
    this.lockRunner = this.dataSource.createQueryRunner();
    await this.lockRunner.connect();
    const [{ ok }] = await this.lockRunner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', ['kestrel:engine-owner']);
    if (!ok) {
      this.logger.warn('another process owns the order books; this one will not take orders');
      await this.lockRunner.release();
      this.lockRunner = undefined;
    }
    return ok;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    // Let batches in flight finish so every acknowledged command is settled or journaled.
    for (let i = 0; i < 100 && [...this.runtimes.values()].some((r) => r.flushing); i++) await new Promise((r) => setTimeout(r, 20));
    await this.lockRunner?.release().catch(() => undefined);
  }

  /** True when this process matches the books (see claimOwnership). */
  get owner(): boolean {
    return this.runtimes.size > 0;
  }

  book(marketId: number): OrderBook | undefined {
    return this.runtimes.get(marketId)?.book;
  }

  lastTradePrice(marketId: number): number | undefined {
    return this.runtimes.get(marketId)?.lastTradePrice;
  }

  place(marketId: number, req: PlaceRequest): Promise<PlaceOutcome> {
    return new Promise((resolve, reject) => this.enqueue(marketId, { kind: 'place', req, resolve, reject }));
  }

  cancel(marketId: number, userId: number, orderId: number): Promise<CancelOutcome> {
    return new Promise((resolve, reject) => this.enqueue(marketId, { kind: 'cancel', userId, orderId, resolve, reject }));
  }

  /** The market whose book holds this order now (order ids are global), if any. */
  marketOf(orderId: number): number | undefined {
    for (const rt of this.runtimes.values()) if (rt.book.order(orderId)) return rt.market.id;
    return undefined;
  }

  private enqueue(marketId: number, p: Pending): void {
    const rt = this.runtimes.get(marketId);
    if (!rt || this.closed) return p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
    rt.queue.push(p);
    if (!rt.flushing) void this.drain(rt);
  }

  /** Forgets every book and rebuilds from the latest snapshots and the journal (start-up, and the crash test). */
  async recover(): Promise<void> {
    this.runtimes.clear();
    for (const market of this.registry.all()) {
      const sink = new EventCollector();
      const book = new FastBook(sink);
      const rt: Runtime = { market, book, sink, version: 0, queue: [], flushing: true, sinceSnapshot: 0, snapshotAt: Date.now() };
      const [snap] = await this.dataSource.query('SELECT journal_version, book FROM engine_snapshots WHERE market_id = $1 ORDER BY journal_version DESC LIMIT 1', [market.id]);
      if (snap) {
        book.restore(snap.book as BookSnapshot);
        rt.version = snap.journal_version;
      }
      let replayed = 0;
      for (;;) {
        const rows: Array<{ stream_version: number; payload: JournalEntry }> = await this.dataSource.query(
          'SELECT stream_version, payload FROM events WHERE stream_id = $1 AND stream_version > $2 ORDER BY stream_version LIMIT $3',
          [journalStream(market.id), rt.version, REPLAY_CHUNK],
        );
        if (!rows.length) break;
        const events = this.match(rt, rows.map((r) => r.payload)).flat();
        await this.settleWithRetry(rt, events);
        rt.version = rows[rows.length - 1].stream_version;
        replayed += rows.length;
      }
      if (rt.lastTradePrice === undefined) {
        const [last] = await this.dataSource.query('SELECT price::text FROM trades WHERE market_id = $1 ORDER BY trade_id DESC LIMIT 1', [market.id]);
        if (last) rt.lastTradePrice = market.engine.priceToTicks(last.price);
      }
      this.runtimes.set(market.id, rt);
      rt.flushing = false;
      if (replayed) this.logger.log(`${market.symbol}: replayed ${replayed} journaled commands after snapshot v${snap?.journal_version ?? 0}`);
      if (replayed) await this.snapshot(rt);
    }
  }

  /**
   * Two batches in flight: while batch N settles, batch N+1 is journaled and matched. Settlements
   * still commit in batch order, and a batch is answered only once it is settled.
   */
  private async drain(rt: Runtime): Promise<void> {
    rt.flushing = true;
    let previous: Promise<void> = Promise.resolve();
    let beforePrevious: Promise<void> = Promise.resolve();
    try {
      // Commands that arrive while the last batch settles are picked up before `flushing` drops:
      // the queue is checked again after every await, and the check and the reset are synchronous.
      do {
        while (rt.queue.length) {
          await beforePrevious;
          const batch = rt.queue.splice(0, MAX_BATCH);
          const { settled } = await this.runBatch(rt, batch, previous);
          beforePrevious = previous;
          previous = settled;
          if (rt.sinceSnapshot >= SNAPSHOT_EVERY_COMMANDS || (rt.sinceSnapshot > 0 && Date.now() - rt.snapshotAt > SNAPSHOT_EVERY_MS)) {
            // A snapshot must not run ahead of settlement: let the pipeline empty first.
            await previous;
            await this.snapshot(rt).catch((err) => this.logger.warn({ err }, 'snapshot failed'));
          }
        }
        await previous;
      } while (rt.queue.length);
    } catch (err) {
      this.logger.fatal({ err }, `${rt.market.symbol}: engine stopped`);
      // Nothing queued was journaled: refuse it rather than leave the callers waiting.
      for (const p of rt.queue.splice(0)) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
    } finally {
      rt.flushing = false;
    }
  }

  /** Journals and matches a batch now; returns its settlement, chained after `after`. */
  private async runBatch(rt: Runtime, batch: Pending[], after: Promise<void>): Promise<{ settled: Promise<void> }> {
    let journaled: Array<{ entry: JournalEntry; pending?: Pending }>;
    const results = new Map<Pending, Finish>();
    try {
      journaled = await this.dataSource.transaction((m) => this.journal(m, rt, batch, results));
    } catch (err) {
      // Nothing of the batch was journaled: every command in it changed nothing.
      this.logger.error({ err }, `${rt.market.symbol}: journal batch failed`);
      for (const p of batch) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
      return { settled: after };
    }
    rt.version += journaled.length;
    rt.sinceSnapshot += journaled.length;
    const events = this.match(rt, journaled.map((j) => j.entry)).flat();
    const settle = async () => {
      let orders = new Map<string, OrderUpdate>();
      try {
        orders = await this.settleWithRetry(rt, events);
      } catch (err) {
        this.logger.fatal({ err }, `${rt.market.symbol}: settlement failed; a restart replays and settles the journal`);
      } finally {
        // Journaled means acknowledged: a restart settles whatever settlement could not.
        for (const finish of results.values()) finish(orders);
      }
    };
    // In batch order, and never skipped: every request of the batch gets its answer.
    const settled = after.then(settle, settle);
    return { settled };
  }

  /**
   * One transaction for the whole batch, in a fixed number of statements: reused client ids are
   * answered with the earlier order, funds are frozen for all new orders at once (an order that
   * does not fit is refused on its own), order rows are written, and every accepted command is
   * appended to the journal in arrival order.
   */
  private async journal(m: EntityManager, rt: Runtime, batch: Pending[], results: Map<Pending, Finish>): Promise<Array<{ entry: JournalEntry; pending?: Pending }>> {
    const ts = Date.now();
    type Place = Extract<Pending, { kind: 'place' }>;
    const places = batch.filter((p): p is Place => p.kind === 'place');
    const keyOf = (p: Place) => (p.req.clientOrderId ? `${p.req.userId}:${p.req.clientOrderId}` : undefined);
    const keyed = places.filter((p) => keyOf(p));
    const prior = new Map<string, string>();
    if (keyed.length) {
      const rows: Array<{ id: string; user_id: number; client_order_id: string }> = await m.query(
        `SELECT o.id::text, o.user_id, o.client_order_id FROM orders o JOIN unnest($1::int[], $2::varchar[]) k(user_id, client_order_id) USING (user_id, client_order_id)`,
        [keyed.map((p) => p.req.userId), keyed.map((p) => p.req.clientOrderId)],
      );
      for (const r of rows) prior.set(`${r.user_id}:${r.client_order_id}`, r.id);
    }
    const fresh: Place[] = [];
    const firstOf = new Map<string, Place>();
    const retries: Array<[Place, Place]> = [];
    for (const p of places) {
      const key = keyOf(p);
      if (key && prior.has(key)) results.set(p, () => p.resolve({ orderId: prior.get(key)!, duplicate: true }));
      else if (key && firstOf.has(key)) retries.push([p, firstOf.get(key)!]);
      else {
        if (key) firstOf.set(key, p);
        fresh.push(p);
      }
    }

    const ids: string[] = fresh.length ? (await m.query(`SELECT nextval('order_ids')::text AS id FROM generate_series(1, $1)`, [fresh.length])).map((r: { id: string }) => r.id) : [];
    const fits = await this.settlement.freeze(
      m,
      fresh.map((p, i) => ({ orderId: Number(ids[i]), userId: p.req.userId, currencyId: p.req.freeze.currencyId, amount: p.req.freeze.amount })),
    );
    const placed = new Map<Place, string>();
    fresh.forEach((p, i) => {
      if (fits[i]) {
        placed.set(p, ids[i]);
        results.set(p, (orders) => p.resolve({ orderId: ids[i], duplicate: false, order: orders.get(ids[i]) }));
      } else {
        const refusal = new BusinessError(p.req.side === 'sell' ? ErrorCode.SELLABLE_INSUFFICIENT : ErrorCode.INSUFFICIENT_BALANCE);
        results.set(p, () => p.reject(refusal));
      }
    });
    for (const [p, first] of retries) {
      const id = placed.get(first);
      results.set(p, id ? () => p.resolve({ orderId: id, duplicate: true }) : () => p.reject(new BusinessError(p.req.side === 'sell' ? ErrorCode.SELLABLE_INSUFFICIENT : ErrorCode.INSUFFICIENT_BALANCE)));
    }
    if (placed.size) {
      const rows = [...placed].map(([p, id]) => [id, p.req.userId, rt.market.id, p.req.side, p.req.type, p.req.row.price, p.req.row.quantity, p.req.row.quoteAmount, p.req.freeze.currencyId, p.req.freeze.amount, p.req.clientOrderId]);
      const inserted = await m.query(
        `INSERT INTO orders (id, user_id, market_id, side, type, price, quantity, quote_amount, frozen_currency_id, frozen_left, status, client_order_id)
         SELECT id, user_id, market_id, side, type, price, quantity, quote_amount, frozen_currency_id, frozen_left, 'waiting', client_order_id
         FROM unnest($1::bigint[], $2::int[], $3::int[], $4::varchar[], $5::varchar[], $6::numeric[], $7::numeric[], $8::numeric[], $9::int[], $10::numeric[], $11::varchar[])
           v(id, user_id, market_id, side, type, price, quantity, quote_amount, frozen_currency_id, frozen_left, client_order_id)
         ON CONFLICT (user_id, client_order_id) WHERE client_order_id IS NOT NULL DO NOTHING RETURNING id`,
        Array.from({ length: 11 }, (_, c) => rows.map((r) => r[c])),
      );
      // A client id used at the same moment on another market: roll the batch back; the retry finds the order.
      if (inserted.length !== rows.length) throw new Error('client order id reused concurrently');
    }

    const cancels = batch.filter((p): p is Extract<Pending, { kind: 'cancel' }> => p.kind === 'cancel');
    const status = new Map<string, CancelledOrderRow>();
    if (cancels.length) {
      const rows: CancelledOrderRow[] = await m.query(
        'SELECT id::text, user_id, market_id, side, type, price::text, quantity::text, quote_amount::text, client_order_id, created_at, status FROM orders WHERE id = ANY($1)',
        [cancels.map((c) => c.orderId)],
      );
      for (const r of rows) status.set(r.id, r);
    }
    const out: Array<{ entry: JournalEntry; pending?: Pending }> = [];
    for (const p of batch) {
      if (p.kind === 'place') {
        const id = placed.get(p);
        if (id) out.push({ entry: { kind: 'place', orderId: Number(id), userId: p.req.userId, side: p.req.side, type: p.req.type, price: p.req.price, qty: p.req.qty, quoteBudget: p.req.quoteBudget, ts }, pending: p });
        continue;
      }
      const o = status.get(String(p.orderId));
      if (!o || o.user_id !== p.userId || o.market_id !== rt.market.id) results.set(p, () => p.reject(new BusinessError(ErrorCode.ORDER_NOT_FOUND)));
      else if (o.status !== 'waiting') results.set(p, () => p.reject(new BusinessError(ErrorCode.ORDER_CLOSED)));
      else {
        out.push({ entry: { kind: 'cancel', orderId: p.orderId, userId: p.userId, ts }, pending: p });
        results.set(p, (orders) => p.resolve({ row: o, update: orders.get(o.id) }));
      }
    }
    if (out.length) {
      await m.query(
        `INSERT INTO events (stream_id, stream_version, type, payload, metadata)
         SELECT $1, $2 + n, 'OrderCommand', p, '{"actor":"engine"}' FROM unnest($3::jsonb[]) WITH ORDINALITY AS x(p, n)`,
        [journalStream(rt.market.id), rt.version, out.map((o) => JSON.stringify(o.entry))],
      );
    }
    return out;
  }

  /** Applies journaled commands to the book in order; returns each command's events. */
  private match(rt: Runtime, entries: JournalEntry[]): EngineEvent[][] {
    return entries.map((e) => {
      rt.book.process(toCommand(e));
      const events = rt.sink.drain();
      for (const ev of events) if (ev.type === 'trade') rt.lastTradePrice = ev.price;
      return events;
    });
  }

  /**
   * Settlement must not be skipped: the book has already moved. Retry transient failures; if
   * the database stays away, stop taking commands — a restart replays the journal and settles.
   */
  private async settleWithRetry(rt: Runtime, events: EngineEvent[]): Promise<Map<string, OrderUpdate>> {
    if (!events.length) return new Map();
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await this.dataSource.transaction((m) => this.settlement.settle(m, rt.market, events));
        if (outcome.trades.length) this.bus.emit('trades', outcome.trades);
        for (const o of outcome.orders) this.bus.emit('order', o);
        for (const u of outcome.users) this.bus.emit('balance', u);
        if (events.some((e) => e.type !== 'rejected')) this.bus.emit('book', rt.market.id);
        return new Map(outcome.orders.map((o) => [o.orderId, o]));
      } catch (err) {
        if (attempt >= 5) {
          this.closed = true;
          this.logger.fatal({ err }, `${rt.market.symbol}: settlement keeps failing; refusing new commands until restart`);
          throw err;
        }
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      }
    }
  }

  private async snapshot(rt: Runtime): Promise<void> {
    await this.dataSource.query('INSERT INTO engine_snapshots (market_id, journal_version, book) VALUES ($1, $2, $3)', [rt.market.id, rt.version, JSON.stringify(rt.book.snapshot())]);
    await this.dataSource.query(
      `DELETE FROM engine_snapshots WHERE market_id = $1 AND id NOT IN (SELECT id FROM engine_snapshots WHERE market_id = $1 ORDER BY journal_version DESC LIMIT 3)`,
      [rt.market.id],
    );
    rt.sinceSnapshot = 0;
    rt.snapshotAt = Date.now();
  }
}

