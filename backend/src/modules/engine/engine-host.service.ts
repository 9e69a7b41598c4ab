import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BookSnapshot, EngineEvent, EventCollector, FastBook, OrderBook } from '@kestrel/matching-engine';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { preparedQuery } from '../../infra/database/sql';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { LedgerAccountMissing } from '../ledger/ledger.service';
import { EngineBus, OrderUpdate } from './engine-bus';
import { JournalEntry, journalStream, toCommand } from './journal';
import { MarketInfo, MarketRegistry } from './market-registry.service';
import { closing, isFundsShort, SettlementService } from './settlement.service';

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
  /** When it was journaled (its row's created_at). */
  createdAt?: Date;
  /** The order's state once its batch is matched — what settlement writes for it (absent for a duplicate). */
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
  | { kind: 'place'; req: PlaceRequest; resolve: (o: PlaceOutcome) => void; reject: (e: unknown) => void; retried?: boolean }
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
  /** Journaled and matched batches waiting for settlement, in journal order. */
  unsettled: Unsettled[];
  unsettledCommands: number;
  settling: boolean;
  /** Stream version up to which every journaled command is settled. */
  settledVersion: number;
  /** Per user, the version of the last unsettled command that moves their funds or orders. */
  pendingUsers: Map<number, number>;
  waiters: Array<{ version: number; resolve: () => void }>;
  /** Settlement gave up on a batch: the batches after it are not settled ahead of it (a restart replays them all, in order). */
  stalled?: boolean;
  /** Rows of the orders this process placed that are still in the book: a cancel reads nothing. */
  live: Map<number, CancelledOrderRow>;
}

interface Unsettled {
  version: number;
  commands: number;
  events: EngineEvent[];
  users: number[];
  /** Answers given only after settlement (cancels). */
  finish: Finish[];
}

const MAX_BATCH = Number(process.env.ENGINE_MAX_BATCH ?? 500);
/** Journaling pauses while this many commands wait for settlement (bounded lag and memory). */
const MAX_UNSETTLED = Number(process.env.ENGINE_MAX_UNSETTLED ?? 4000);
/** Settlement takes whatever has been matched, up to this many commands per transaction. */
const SETTLE_BATCH = Number(process.env.ENGINE_SETTLE_BATCH ?? 2000);
const SNAPSHOT_EVERY_COMMANDS = Number(process.env.ENGINE_SNAPSHOT_EVERY ?? 5000);
const SNAPSHOT_EVERY_MS = 60_000;
const REPLAY_CHUNK = 2000;
/** The spec's message for an order its owner's funds do not cover. */
const fundsRefusal = (req: PlaceRequest) => new BusinessError(req.side === 'sell' ? ErrorCode.SELLABLE_INSUFFICIENT : ErrorCode.INSUFFICIENT_BALANCE);

/** How many closed orders' owners are remembered for late cancels (~50 bytes each). */
const LEFT_REMEMBERED = 200_000;
/** Order ids are drawn from the sequence this many at a time (unused ones are a gap, as after a rollback). */
const ID_BLOCK = 2000;

/**
 * Owns one order book per market (DESIGN §6). Commands are journaled in the event store before
 * they are matched — many per transaction (group commit: whatever arrives while the previous
 * batch commits forms the next batch) — then matched in journal order. A place is answered once
 * its batch is journaled and matched: it is durable, and settlement is a deterministic function of
 * the journal. Settlement follows on its own loop, many batches per transaction, and reads that
 * need it wait for it (`settledFor`). On start the host restores the latest snapshot and replays
 * the journal after it.
 */
@Injectable()
export class EngineHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EngineHost');
  private readonly runtimes = new Map<number, Runtime>();
  private closed = false;
  private lockRunner?: QueryRunner;
  private readonly idPool: string[] = [];
  /** Owners of orders this process saw leave a book, oldest first (bounded): a late cancel is answered without a read. */
  private readonly left = new Map<number, number>();

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
    for (let i = 0; i < 100 && [...this.runtimes.values()].some((r) => r.flushing || r.settling); i++) await new Promise((r) => setTimeout(r, 20));
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

  /**
   * Resolves once every journaled command that moves this user's funds or orders is settled;
   * undefined when nothing is pending (the usual case, no promise to wait on).
   */
  settledFor(userId: number): Promise<void> | undefined {
    let waits: Array<Promise<void>> | undefined;
    for (const rt of this.runtimes.values()) {
      const version = rt.pendingUsers.get(userId);
      if (version !== undefined && version > rt.settledVersion) (waits ??= []).push(this.settledTo(rt, version));
    }
    return waits && Promise.all(waits).then(() => undefined);
  }

  /** Resolves once everything journaled so far, in every market, is settled. */
  async idle(): Promise<void> {
    await Promise.all([...this.runtimes.values()].map((rt) => this.settledTo(rt, rt.version)));
  }

  private settledTo(rt: Runtime, version: number): Promise<void> {
    if (version <= rt.settledVersion) return Promise.resolve();
    return new Promise((resolve) => rt.waiters.push({ version, resolve }));
  }

  /** The owner of an order this process saw leave its book (filled or cancelled), if it remembers it. */
  ownerOfClosed(orderId: number): number | undefined {
    return this.left.get(orderId);
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
    // Settlement in flight in this process finishes first (after a real crash the replay does it).
    await this.idle();
    this.closed = false;
    this.runtimes.clear();
    for (const market of this.registry.all()) {
      const sink = new EventCollector();
      const book = new FastBook(sink);
      const rt: Runtime = {
        market,
        book,
        sink,
        version: 0,
        queue: [],
        flushing: true,
        sinceSnapshot: 0,
        snapshotAt: Date.now(),
        unsettled: [],
        unsettledCommands: 0,
        settling: false,
        settledVersion: 0,
        pendingUsers: new Map(),
        waiters: [],
        live: new Map(),
      };
      const [snap] = await this.dataSource.query(
        'SELECT journal_version, book FROM engine_snapshots WHERE market_id = $1 ORDER BY journal_version DESC LIMIT 1',
        [market.id],
      );
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
        const events = this.match(
          rt,
          rows.map((r) => r.payload),
        ).flat();
        await this.settleWithRetry(rt, events);
        rt.version = rows[rows.length - 1].stream_version;
        replayed += rows.length;
      }
      rt.settledVersion = rt.version;
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
   * Journals and matches batch after batch; settlement runs behind on its own loop. Journaling
   * pauses while too much waits for settlement, and before a snapshot (which must not run ahead
   * of settlement) until settlement has caught up.
   */
  private async drain(rt: Runtime): Promise<void> {
    rt.flushing = true;
    try {
      // Commands that arrive while a batch is journaled are picked up before `flushing` drops:
      // the queue is checked again after every await, and the check and the reset are synchronous.
      do {
        while (rt.queue.length) {
          while (rt.unsettledCommands >= MAX_UNSETTLED) await this.settledTo(rt, rt.settledVersion + 1);
          await this.runBatch(rt, rt.queue.splice(0, MAX_BATCH));
          if (rt.sinceSnapshot >= SNAPSHOT_EVERY_COMMANDS || (rt.sinceSnapshot > 0 && Date.now() - rt.snapshotAt > SNAPSHOT_EVERY_MS)) {
            await this.settledTo(rt, rt.version);
            if (!this.closed) await this.snapshot(rt).catch((err) => this.logger.warn({ err }, 'snapshot failed'));
          }
        }
      } while (rt.queue.length);
    } catch (err) {
      this.logger.fatal({ err }, `${rt.market.symbol}: engine stopped`);
      // Nothing queued was journaled: refuse it rather than leave the callers waiting.
      for (const p of rt.queue.splice(0)) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
    } finally {
      rt.flushing = false;
    }
  }

  /**
   * Journals and matches a batch, answers what can be answered now (places, with their state
   * after matching; refusals) and hands the events to settlement, which answers cancels.
   */
  private async runBatch(rt: Runtime, batch: Pending[]): Promise<void> {
    let journaled: Array<{ entry: JournalEntry; pending?: Pending }>;
    const results = new Map<Pending, Finish>();
    const afterSettlement = new Set<Pending>();
    const attempt = (optimistic: boolean) => {
      results.clear();
      afterSettlement.clear();
      return this.dataSource.transaction((m) => this.journal(m, rt, batch, results, afterSettlement, optimistic));
    };
    try {
      // Usually every order fits: freeze them all last, in one statement. If one does not, the
      // attempt rolls back and the batch is journaled again, each order's freeze checked on its own.
      journaled = await attempt(true).catch((err: unknown) => {
        if (isFundsShort(err) || err instanceof LedgerAccountMissing) return attempt(false);
        throw err;
      });
    } catch (err) {
      // Nothing of the batch was journaled: every command in it changed nothing.
      this.logger.error({ err }, `${rt.market.symbol}: journal batch failed`);
      for (const p of batch) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
      return;
    }
    rt.version += journaled.length;
    rt.sinceSnapshot += journaled.length;
    const events = this.match(
      rt,
      journaled.map((j) => j.entry),
    ).flat();
    const placed = new Map<number, number>();
    const users = new Set<number>();
    for (const { entry } of journaled) {
      users.add(entry.userId);
      if (entry.kind === 'place') placed.set(entry.orderId, entry.userId);
    }
    for (const e of events) if (e.type === 'trade') users.add(e.makerOwner);
    for (const u of users) rt.pendingUsers.set(u, rt.version);

    const states = this.settlement.orderStates(rt.market, events, placed);
    const finish: Finish[] = [];
    for (const [p, f] of results) {
      if (afterSettlement.has(p)) finish.push(f);
      else f(states);
    }
    if (!journaled.length) return;
    rt.unsettled.push({ version: rt.version, commands: journaled.length, events, users: [...users], finish });
    rt.unsettledCommands += journaled.length;
    if (!rt.settling) void this.settleLoop(rt);
  }

  /**
   * Settles matched batches in journal order, as many per transaction as have accumulated (up
   * to SETTLE_BATCH commands), then answers their cancels and releases the reads waiting for them.
   */
  private async settleLoop(rt: Runtime): Promise<void> {
    rt.settling = true;
    try {
      while (rt.unsettled.length) {
        let take = 0;
        let commands = 0;
        while (take < rt.unsettled.length && (take === 0 || commands + rt.unsettled[take].commands <= SETTLE_BATCH)) commands += rt.unsettled[take++].commands;
        const chunk = rt.unsettled.splice(0, take);
        let orders = new Map<string, OrderUpdate>();
        try {
          if (!rt.stalled)
            orders = await this.settleWithRetry(
              rt,
              chunk.flatMap((c) => c.events),
            );
        } catch (err) {
          rt.stalled = true;
          this.logger.fatal({ err }, `${rt.market.symbol}: settlement failed; a restart replays and settles the journal`);
        } finally {
          // Journaled means acknowledged: a restart settles whatever settlement could not.
          const version = chunk[chunk.length - 1].version;
          rt.unsettledCommands -= commands;
          rt.settledVersion = version;
          for (const c of chunk) for (const f of c.finish) f(orders);
          for (const c of chunk) for (const u of c.users) if ((rt.pendingUsers.get(u) ?? 0) <= version) rt.pendingUsers.delete(u);
          const ready = rt.waiters.filter((w) => w.version <= version);
          rt.waiters = rt.waiters.filter((w) => w.version > version);
          for (const w of ready) w.resolve();
        }
      }
    } finally {
      rt.settling = false;
    }
  }

  /** A refused order whose owner has settlement pending is tried once more after it: settlement may credit what it needs. */
  private refusal(rt: Runtime, p: Extract<Pending, { kind: 'place' }>): Finish {
    const refuse = () => p.reject(fundsRefusal(p.req));
    const pending = p.retried ? undefined : this.settledFor(p.req.userId);
    if (!pending) return refuse;
    p.retried = true;
    return () => void pending.then(() => this.enqueue(rt.market.id, p));
  }

  /**
   * One transaction for the whole batch, in a fixed number of statements: reused client ids are
   * answered with the earlier order, funds are frozen for all new orders at once, order rows are
   * written, and every accepted command is appended to the journal in arrival order.
   * `optimistic`: every new order is taken to fit and the freeze comes last, in one statement
   * (the balance rows, which settlement also locks, are held only from it to the commit); it
   * throws (`isFundsShort`) if one does not. Otherwise the freeze comes first and an order that
   * does not fit is refused on its own.
   */
  private async journal(
    m: EntityManager,
    rt: Runtime,
    batch: Pending[],
    results: Map<Pending, Finish>,
    afterSettlement: Set<Pending>,
    optimistic: boolean,
  ): Promise<Array<{ entry: JournalEntry; pending?: Pending }>> {
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

    const ids = await this.orderIds(m, fresh.length);
    const createdAt = new Date(ts);
    const freezes = fresh.map((p, i) => ({ orderId: Number(ids[i]), userId: p.req.userId, currencyId: p.req.freeze.currencyId, amount: p.req.freeze.amount }));
    const fits = optimistic ? freezes.map(() => true) : await this.settlement.freeze(m, freezes);
    const placed = new Map<Place, string>();
    fresh.forEach((p, i) => {
      if (fits[i]) {
        placed.set(p, ids[i]);
        results.set(p, (orders) => p.resolve({ orderId: ids[i], createdAt, duplicate: false, order: orders.get(ids[i]) }));
      } else results.set(p, this.refusal(rt, p));
    });
    for (const [p, first] of retries) {
      const id = placed.get(first);
      // A repeat shares the first one's fate: placed, refused, or tried again after settlement with it.
      results.set(p, id ? () => p.resolve({ orderId: id, duplicate: true }) : this.refusal(rt, p));
    }
    const newRows = [...placed].map(([p, id]): CancelledOrderRow => {
      const { price, quantity, quoteAmount } = p.req.row;
      return {
        id,
        user_id: p.req.userId,
        market_id: rt.market.id,
        side: p.req.side,
        type: p.req.type,
        price,
        quantity,
        quote_amount: quoteAmount,
        client_order_id: p.req.clientOrderId,
        created_at: createdAt,
        status: 'waiting',
      };
    });

    // Orders placed by this process are known; others (from before a restart) are read.
    const cancels = batch.filter((p): p is Extract<Pending, { kind: 'cancel' }> => p.kind === 'cancel');
    const status = new Map<string, CancelledOrderRow>();
    const unknown = cancels.filter((c) => !rt.live.has(c.orderId)).map((c) => c.orderId);
    if (unknown.length) {
      const rows: CancelledOrderRow[] = await m.query(
        'SELECT id::text, user_id, market_id, side, type, price::text, quantity::text, quote_amount::text, client_order_id, created_at, status FROM orders WHERE id = ANY($1)',
        [unknown],
      );
      for (const r of rows) status.set(r.id, r);
    }
    for (const c of cancels) if (rt.live.has(c.orderId)) status.set(String(c.orderId), rt.live.get(c.orderId)!);
    const out: Array<{ entry: JournalEntry; pending?: Pending }> = [];
    for (const p of batch) {
      if (p.kind === 'place') {
        const id = placed.get(p);
        if (id)
          out.push({
            entry: {
              kind: 'place',
              orderId: Number(id),
              userId: p.req.userId,
              side: p.req.side,
              type: p.req.type,
              price: p.req.price,
              qty: p.req.qty,
              quoteBudget: p.req.quoteBudget,
              ts,
            },
            pending: p,
          });
        continue;
      }
      const o = status.get(String(p.orderId));
      if (!o || o.user_id !== p.userId || o.market_id !== rt.market.id) results.set(p, () => p.reject(new BusinessError(ErrorCode.ORDER_NOT_FOUND)));
      // The book is up to date with every batch before this one; the table may still wait for settlement.
      else if (o.status !== 'waiting' || !rt.book.order(p.orderId)) results.set(p, () => p.reject(new BusinessError(ErrorCode.ORDER_CLOSED)));
      else {
        out.push({ entry: { kind: 'cancel', orderId: p.orderId, userId: p.userId, ts }, pending: p });
        results.set(p, (orders) => p.resolve({ row: o, update: orders.get(o.id) }));
        afterSettlement.add(p);
      }
    }
    if (out.length) {
      // The new orders' rows and the journal in one statement.
      const frozen = [...placed.keys()].map((p) => p.req.freeze);
      const [{ inserted }] = await preparedQuery<{ inserted: number }>(
        m,
        'engine_journal',
        `WITH o AS (
           INSERT INTO orders (id, user_id, market_id, side, type, price, quantity, quote_amount, frozen_currency_id, frozen_left, status, client_order_id, created_at, updated_at)
           SELECT id, user_id, $1, side, type, price, quantity, quote_amount, frozen_currency_id, frozen_left, 'waiting', client_order_id, $4, $4
           FROM unnest($5::bigint[], $6::int[], $7::varchar[], $8::varchar[], $9::numeric[], $10::numeric[], $11::numeric[], $12::int[], $13::numeric[], $14::varchar[])
             v(id, user_id, side, type, price, quantity, quote_amount, frozen_currency_id, frozen_left, client_order_id)
           ON CONFLICT (user_id, client_order_id) WHERE client_order_id IS NOT NULL DO NOTHING RETURNING 1),
         j AS (
           INSERT INTO events (stream_id, stream_version, type, payload, metadata)
           SELECT $2, $3 + n, 'OrderCommand', p, '{"actor":"engine"}' FROM unnest($15::jsonb[]) WITH ORDINALITY AS x(p, n))
         SELECT COUNT(*)::int AS inserted FROM o`,
        [
          rt.market.id,
          journalStream(rt.market.id),
          rt.version,
          createdAt,
          newRows.map((r) => r.id),
          newRows.map((r) => r.user_id),
          newRows.map((r) => r.side),
          newRows.map((r) => r.type),
          newRows.map((r) => r.price),
          newRows.map((r) => r.quantity),
          newRows.map((r) => r.quote_amount),
          frozen.map((f) => f.currencyId),
          frozen.map((f) => f.amount),
          newRows.map((r) => r.client_order_id),
          out.map((o) => JSON.stringify(o.entry)),
        ],
      );
      // A client id used at the same moment on another market: roll the batch back; the retry finds the order.
      if (inserted !== newRows.length) throw new Error('client order id reused concurrently');
    }
    if (optimistic) await this.settlement.freezeAll(m, freezes);
    for (const r of newRows) rt.live.set(Number(r.id), r);
    return out;
  }

  /** Fresh order ids, drawn from the sequence in blocks (outside the batch's fate: a rollback leaves a gap). */
  private async orderIds(m: EntityManager, n: number): Promise<string[]> {
    if (this.idPool.length < n) {
      const rows: Array<{ id: string }> = await m.query(`SELECT nextval('order_ids')::text AS id FROM generate_series(1, $1)`, [n + ID_BLOCK]);
      this.idPool.push(...rows.map((r) => r.id));
    }
    return this.idPool.splice(0, n);
  }

  /** Applies journaled commands to the book in order; returns each command's events. */
  private match(rt: Runtime, entries: JournalEntry[]): EngineEvent[][] {
    return entries.map((e) => {
      rt.book.process(toCommand(e));
      const events = rt.sink.drain();
      for (const ev of events) {
        if (ev.type === 'trade') rt.lastTradePrice = ev.price;
        const left = closing(ev);
        if (left) {
          const row = rt.live.get(left[0]);
          if (row) {
            rt.live.delete(left[0]);
            this.left.set(left[0], row.user_id);
            if (this.left.size > LEFT_REMEMBERED) this.left.delete(this.left.keys().next().value!);
          }
        }
      }
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
    await this.dataSource.query('INSERT INTO engine_snapshots (market_id, journal_version, book) VALUES ($1, $2, $3)', [
      rt.market.id,
      rt.version,
      JSON.stringify(rt.book.snapshot()),
    ]);
    await this.dataSource.query(
      `DELETE FROM engine_snapshots WHERE market_id = $1 AND id NOT IN (SELECT id FROM engine_snapshots WHERE market_id = $1 ORDER BY journal_version DESC LIMIT 3)`,
      [rt.market.id],
    );
    rt.sinceSnapshot = 0;
    rt.snapshotAt = Date.now();
  }
}
