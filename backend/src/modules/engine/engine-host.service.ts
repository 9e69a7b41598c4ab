import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { OrderBook } from '@kestrel/matching-engine';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, role } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode, ErrorCodeValue } from '../../infra/http/error-codes';
import { EngineBus } from './engine-bus';
import { EngineLease, FencedError } from './engine-lease';
import { EngineLink, EngineReply, EngineRequest, LinkEvent, processId } from './engine-link';
import { JournalWriter } from './journal-writer';
import { MarketInfo, MarketRegistry } from './market-registry.service';
import { ProjectionReplica, ReplicaEvent } from './projection-replica';
import { AppliedBatch, Projector, tradeTick } from './projector';
import { ProjectorThread } from './projector-thread';
import type { Balance } from './sequencer/balances';
import type { MarketParams, SeqCode, SeqCommand, SeqOutcome } from './sequencer/commands';
import { Sequencer } from './sequencer/sequencer';
import { Snapshotter } from './snapshotter';

interface Pending {
  cmd: SeqCommand;
  resolve: (r: { outcome: SeqOutcome; seq: number }) => void;
  reject: (e: unknown) => void;
}

const REPLAY_CHUNK = 500;
/** How many closed orders' owners are remembered for late cancels (~50 bytes each). */
const CLOSED_REMEMBERED = 200_000;

/**
 * The sequencer's host (DESIGN §6): the thin wiring of the pipeline's stages, each its own class.
 * Commands queue here; each group commit journals the whole queue in one row (`JournalWriter`),
 * then the pure `Sequencer` applies it in memory and every caller gets its full result at once;
 * market data follows. The projection replica (`ProjectionReplica`, on its own thread in the built
 * app) replays the journal and writes the read tables and the snapshots behind; only sequence
 * numbers cross. Reads that must see a user's own writes wait for it (`settledFor`). On start: the
 * newest snapshot at or below the projector's watermark, then the journal replayed to its head.
 */
@Injectable()
export class EngineHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EngineHost');
  /** The stages (public for the crash and fault tests). */
  readonly journal: JournalWriter;
  readonly projector: Projector;
  readonly snapshots: Snapshotter;
  private seqr?: Sequencer;
  private queue: Pending[] = [];
  private flushing = false;
  private closed = false;
  /** The sequencer refuses commands until a restart (`recover`): a journal write whose fate is unknown, or a broken invariant. */
  private stopped = false;
  /** The lease with its fencing token (ROLE=all and engine); the transport to the lease holder (split roles). */
  private lease?: EngineLease;
  private link?: EngineLink;
  private leaseTimer?: NodeJS.Timeout;
  private standbyTimer?: NodeJS.Timeout;
  private readonly ownerHooks: Array<() => Promise<void> | void> = [];
  private readonly role = role();
  private journaled = 0;
  private projected = 0;
  private lastTs = 0;
  /** Applied batches not yet projected, with when they were answered: their pushes go out (and their lag is counted) once the projector reports them. */
  private applied: Array<AppliedBatch & { at: number }> = [];
  private unprojected = 0;
  /** The projection replica: on its own thread in the built app, in-process on the sources (tests). */
  private replica?: ProjectorThread | ProjectionReplica;
  private readonly userSeq = new Map<number, number>();
  private waiters: Array<{ seq: number; resolve: () => void }> = [];
  /** Owners of orders this process saw leave their book, oldest first (bounded): a late cancel is answered "closed" without waiting for the projector. */
  private readonly closedOwners = new Map<number, number>();
  /** Recent projector lags (answer → projection commit, ms), newest last, bounded. */
  private lags: number[] = [];
  /** Recent journal writes (ms) and their sizes (commands), bounded. */
  private journalMs: number[] = [];
  private journalSizes: number[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
    private readonly bus: EngineBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.journal = new JournalWriter(dataSource);
    this.projector = new Projector(dataSource, registry);
    this.snapshots = new Snapshotter(dataSource);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.registry.load();
    const { leaseMs, transport } = this.config.engine;
    // The lease's holder name is also this process's name on the command transport.
    const lease = new EngineLease(this.dataSource, leaseMs);
    if (transport === 'redis') {
      this.link = new EngineLink(this.config.redisUrl, this.config.redisPrefix, processId(lease.holder));
      await this.link.listen((e) => this.onLinkEvent(e));
    }
    if (this.role !== 'all' && this.role !== 'engine') {
      // api / worker: commands go to the lease holder; the watermark comes by pub/sub (read-your-writes).
      this.projected = await this.projector.watermark();
      this.journaled = this.projected;
      return;
    }
    this.lease = lease;
    let token = await this.lease.tryAcquire();
    // ROLE=all is meant to run the sequencer: the lease of its own previous run (a kill -9) expires within leaseMs.
    for (let waited = 0; token === undefined && this.role === 'all' && waited <= leaseMs + 500; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      token = await this.lease.tryAcquire();
    }
    if (token !== undefined) await this.becomeOwner(token);
    else {
      const held = await this.lease.state();
      this.logger.warn(`standby: ${held?.holder ?? 'another process'} holds the sequencer's lease; this process takes over if it stops renewing`);
      this.standby();
    }
  }

  /**
   * The lease is ours (token N): rebuild from snapshot + journal, keep renewing, serve the command
   * stream, and start what runs beside the sequencer only. Every journal write carries the token.
   */
  private async becomeOwner(token: number): Promise<void> {
    clearInterval(this.standbyTimer);
    this.standbyTimer = undefined;
    this.logger.log(`sequencer lease taken (fencing token ${token})`);
    this.leaseTimer = setInterval(() => void this.renewLease(), Math.max(100, Math.floor(this.config.engine.leaseMs / 3)));
    this.leaseTimer.unref();
    await this.recover();
    this.link?.serve(this.link.processId, (req) => this.serveRequest(req));
    for (const hook of this.ownerHooks) await Promise.resolve(hook()).catch((err) => this.logger.warn({ err }, 'a task beside the sequencer failed to start'));
  }

  /** Waits for the lease: a standby takes it once the holder's expiry has passed (the database's clock). */
  private standby(): void {
    if (this.standbyTimer || this.closed) return;
    const every = Math.max(100, Math.floor(this.config.engine.leaseMs / 6));
    let trying = false;
    this.standbyTimer = setInterval(() => {
      if (trying) return;
      trying = true;
      void this.lease!.tryAcquire()
        .then((token) => (token !== undefined ? this.becomeOwner(token) : undefined))
        .catch((err) => this.logger.warn(`lease: ${(err as Error).message}`))
        .finally(() => (trying = false));
    }, every);
    this.standbyTimer.unref();
  }

  private async renewLease(): Promise<void> {
    const lease = this.lease!;
    try {
      if (!(await lease.renew())) this.stepDown('another process took the lease');
    } catch (err) {
      if (lease.current === undefined) this.stepDown(`the lease could not be renewed before it expired (${(err as Error).message})`);
    }
  }

  /**
   * Not the sequencer any more (the lease was lost or a journal write was fenced): take nothing,
   * drop the state (the new holder rebuilds it from the journal), and wait as a standby.
   */
  private stepDown(reason: string): void {
    if (!this.seqr) return;
    this.logger.warn(`stepping down: ${reason}`);
    clearInterval(this.leaseTimer);
    this.leaseTimer = undefined;
    this.lease?.drop();
    void this.link?.stopServing();
    for (const p of this.queue.splice(0)) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
    for (const w of this.waiters.splice(0)) w.resolve();
    const replica = this.replica;
    this.replica = undefined;
    this.seqr = undefined;
    this.applied = [];
    this.unprojected = 0;
    void replica?.stop();
    this.standby();
  }

  /** Runs `fn` in the process that holds the sequencer: now if this is it, else if and when it takes over. */
  async whenOwner(fn: () => Promise<void> | void): Promise<void> {
    this.ownerHooks.push(fn);
    if (this.owner) await fn();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.standbyTimer);
    // Let batches in flight finish so every acknowledged command is projected (a restart would anyway).
    for (let i = 0; i < 200 && (this.flushing || this.applied.length) && !this.stopped; i++) await new Promise((r) => setTimeout(r, 20));
    await this.link?.stopServing();
    await this.replica?.stop();
    clearInterval(this.leaseTimer);
    await this.lease?.release().catch(() => undefined);
    await this.link?.close();
  }

  /** A request from an api or worker process (the command stream): run here, answered with the batch it joined. */
  private async serveRequest(req: EngineRequest): Promise<EngineReply> {
    if (req.ctl === 'markets') return { id: req.id, result: await this.marketsChanged() };
    if (req.ctl === 'stats') return { id: req.id, result: await this.stats() };
    const { outcome, seq } = await this.submitLocal(req.cmd!);
    return { id: req.id, seq, outcome };
  }

  /** What the other processes tell each other (pub/sub): the projector's watermark, new markets, outbox work. */
  private onLinkEvent(e: LinkEvent): void {
    if (e.kind === 'projected') {
      if (this.seqr || e.seq <= this.projected) return;
      this.projected = e.seq;
      this.releaseWaiters(e.seq);
      this.bus.emit('projected', e.seq);
    } else if (e.kind === 'markets') {
      if (!this.seqr) void this.registry.load();
    } else if (e.kind === 'outbox') {
      if (this.seqr) this.bus.emit('outbox');
    }
  }

  /** Tells every process (split roles) that the outbox has work (the relay runs beside the sequencer). */
  outboxKick(): void {
    if (this.seqr) this.bus.emit('outbox');
    else this.link?.publish({ kind: 'outbox' });
  }

  /** True when this process runs the sequencer. */
  get owner(): boolean {
    return this.seqr !== undefined;
  }

  book(marketId: number): OrderBook | undefined {
    return this.seqr?.book(marketId);
  }

  lastTradePrice(marketId: number): number | undefined {
    return this.seqr?.lastTradePrice(marketId);
  }

  /** A trade-account balance as the sequencer holds it now (ahead of the projection). */
  balance(key: string): Balance | undefined {
    return this.seqr?.balance(key);
  }

  /** The owner of an order this process saw leave its book (filled or cancelled), if it remembers it. */
  ownerOfClosed(orderId: number): number | undefined {
    return this.closedOwners.get(orderId);
  }

  /** The market whose book holds this order now, if it is live. */
  marketOf(orderId: number): number | undefined {
    return this.seqr?.order(orderId)?.marketId;
  }

  /** The replay hash of the state now (books, balances, orders, counters). */
  stateHash(): string | undefined {
    return this.seqr?.hash();
  }

  /** Journal sequence of the last batch applied, and the projector's watermark. */
  get positions(): { journaled: number; projected: number } {
    return { journaled: this.journaled, projected: this.projected };
  }

  /**
   * The pipeline's positions and the projector's lag (from a batch's answer to its projection's
   * commit) since the last call: what the operator endpoint and the benchmarks print.
   */
  stats(): Promise<ReturnType<EngineHost['localStats']>> {
    return this.ask('stats', () => this.localStats());
  }

  private localStats() {
    const dist = (xs: number[]) => {
      const s = xs.sort((a, b) => a - b);
      const at = (p: number) => (s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10 : 0);
      return { samples: s.length, p50: at(50), p99: at(99), max: at(100) };
    };
    const out = {
      role: this.role,
      fencing_token: this.lease?.current ?? null,
      journaled: this.journaled,
      projected: this.projected,
      unprojected_commands: this.unprojected,
      projector_lag_ms: dist(this.lags),
      journal_write_ms: dist(this.journalMs),
      commands_per_journal_row: dist(this.journalSizes),
    };
    this.lags = [];
    this.journalMs = [];
    this.journalSizes = [];
    return out;
  }

  /**
   * Journals, applies and answers one command (in the next group commit): here when this process
   * holds the sequencer, else forwarded to the holder over the command stream (split roles).
   */
  async submit(cmd: SeqCommand): Promise<SeqOutcome> {
    if (this.seqr || !this.link) return (await this.submitLocal(cmd)).outcome;
    const reply = await this.link.ask({ cmd }, this.config.engine.forwardTimeoutMs);
    if (reply.error !== undefined) throw new BusinessError(reply.error as ErrorCodeValue);
    const outcome = reply.outcome!;
    const seq = reply.seq!;
    if (seq > this.journaled) this.journaled = seq;
    if (seq > this.projected) for (const u of outcome.users) this.userSeq.set(u, Math.max(seq, this.userSeq.get(u) ?? 0));
    return outcome;
  }

  /** A control request answered by the sequencer's process (here, or over the command stream). */
  private async ask<T>(ctl: 'markets' | 'stats', local: () => Promise<T> | T): Promise<T> {
    if (this.seqr || !this.link) return local();
    const reply = await this.link.ask({ ctl }, this.config.engine.forwardTimeoutMs);
    if (reply.error !== undefined) throw new BusinessError(reply.error as ErrorCodeValue);
    return reply.result as T;
  }

  private submitLocal(cmd: SeqCommand): Promise<{ outcome: SeqOutcome; seq: number }> {
    return new Promise((resolve, reject) => {
      if (!this.seqr || this.closed || this.stopped) return reject(new BusinessError(ErrorCode.MARKET_BUSY));
      // Bounded lag: past it the sequencer takes nothing new (and says so) until the projector catches up.
      if (this.unprojected >= this.config.engine.maxUnprojected) return reject(new BusinessError(ErrorCode.SEQUENCER_BEHIND));
      this.queue.push({ cmd, resolve, reject });
      if (!this.flushing) void this.drain();
    });
  }

  /** Resolves once everything journaled for this user is projected; undefined when nothing is pending (no promise to wait on). */
  settledFor(userId: number): Promise<void> | undefined {
    const seq = this.userSeq.get(userId);
    if (seq === undefined) return undefined;
    if (seq <= this.projected) {
      this.userSeq.delete(userId);
      return undefined;
    }
    return this.projectedTo(seq);
  }

  /** Resolves once everything submitted so far is journaled, applied and projected. */
  async idle(): Promise<void> {
    while (this.flushing || this.queue.length) await new Promise((r) => setTimeout(r, 2));
    await this.projectedTo(this.journaled);
  }

  private projectedTo(seq: number): Promise<void> {
    if (seq <= this.projected || this.stopped) return Promise.resolve();
    // Someone waits for it: the projector does not linger up to it.
    this.replica?.flush(seq);
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /**
   * Forgets the state and rebuilds it (start-up, and the crash tests): the newest snapshot at or
   * below the projector's watermark, then every journaled batch after it, applied again; the
   * batches past the watermark are projected (exactly once: the watermark moves in their transaction).
   */
  async recover(): Promise<void> {
    if (this.seqr && !this.stopped) await this.idle();
    await this.replica?.stop();
    this.replica = undefined;
    this.seqr = undefined;
    this.queue = [];
    this.applied = [];
    this.unprojected = 0;
    this.stopped = false;
    this.closed = false;
    const watermark = await this.projector.watermark();
    const snap = await this.snapshots.latest(watermark);
    const seqr = snap ? Sequencer.restore(snap) : await this.snapshots.genesis();
    // This copy answers and pushes; the projection replica's copy writes the ledger.
    seqr.postings = false;
    let replayed = 0;
    for (;;) {
      const batches = await this.journal.after(seqr.seq, REPLAY_CHUNK);
      if (!batches.length) break;
      for (const b of batches) {
        seqr.beginBatch(b.seq, b.ts);
        for (const c of b.commands) seqr.apply(c);
        this.lastTs = Math.max(this.lastTs, b.ts);
      }
      replayed += batches.length;
    }
    this.journaled = seqr.seq;
    this.projected = watermark;
    this.seqr = seqr;
    this.userSeq.clear();
    this.logger.log(`sequencer at batch ${seqr.seq} (snapshot ${snap?.seq ?? 0}, ${replayed} batches replayed); replay hash ${seqr.hash()}`);
    // The projector catches up from its own watermark (what the crash left unprojected is projected now, once).
    await this.startReplica();
    if (seqr.seq > watermark) {
      this.replica!.journaled(seqr.seq);
      await this.projectedTo(seqr.seq);
    }
    await this.configureMarkets();
  }

  private async startReplica(): Promise<void> {
    const { projectBatch, projectLingerMs, snapshotEvery } = this.config.engine;
    const onEvent = (e: ReplicaEvent) => this.onReplica(e);
    this.replica =
      this.config.engine.projectorThread && ProjectorThread.available()
        ? new ProjectorThread(
            {
              databaseUrl: this.config.databaseUrl,
              markets: this.registry.all().map(({ id, symbol, tickSize, lotSize, minQty }) => ({ id, symbol, tickSize, lotSize, minQty })),
              projectBatch,
              projectLingerMs,
              snapshotEvery,
              idleTransactionMs: this.config.engine.leaseMs,
            },
            onEvent,
          )
        : new ProjectionReplica(this.dataSource, this.projector, { projectBatch, projectLingerMs, snapshotEvery }, onEvent);
    await this.replica.start();
  }

  /** The projector moved its watermark (pushes go out, reads waiting for it go on), or gave up. */
  private onReplica(e: ReplicaEvent): void {
    if (e.kind === 'failed') {
      this.stopped = true;
      this.logger.fatal({ err: e.error }, 'projection keeps failing; the sequencer takes no more commands until it restarts');
      for (const p of this.queue.splice(0)) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
      for (const w of this.waiters.splice(0)) w.resolve();
      return;
    }
    if (e.seq <= this.projected) return;
    this.projected = e.seq;
    const now = performance.now();
    const users = new Set<number>();
    while (this.applied.length && this.applied[0].seq <= e.seq) {
      const b = this.applied.shift()!;
      this.unprojected -= b.outcomes.length;
      if (this.lags.length < 200_000) this.lags.push(now - b.at);
      for (const o of b.outcomes) {
        for (const ord of o.orders) this.bus.emit('order', ord);
        for (const u of o.users) users.add(u);
      }
    }
    for (const u of users) this.bus.emit('balance', u);
    this.bus.emit('projected', e.seq);
    this.link?.publish({ kind: 'projected', seq: e.seq });
    this.releaseWaiters(e.seq);
  }

  private releaseWaiters(seq: number): void {
    const ready = this.waiters.filter((w) => w.seq <= seq);
    this.waiters = this.waiters.filter((w) => w.seq > seq);
    for (const w of ready) w.resolve();
    if (this.userSeq.size > 50_000) for (const [u, s] of this.userSeq) if (s <= seq) this.userSeq.delete(u);
  }

  /** Market parameters change only through the journal: a market added or re-priced in the database is journaled here. */
  private async configureMarkets(): Promise<Array<{ symbol: string; code: SeqCode }>> {
    const changed = this.registry.all().filter((m) => !sameParams(this.seqr!.market(m.id), paramsOf(m)));
    return Promise.all(
      changed.map(async (m) => {
        const r = await this.submit({ t: 'market', market: paramsOf(m) });
        if (r.code !== 'OK') this.logger.error(`${m.symbol}: market parameters refused (${r.code})`);
        return { symbol: m.symbol, code: r.code };
      }),
    );
  }

  /**
   * A market was added or changed in its table at run time (an operator's listing): the registry
   * reloads it and its parameters go through the journal as a `market` command, as at start; the
   * projector learns them from the journal. Returns each changed market's answer.
   */
  async marketsChanged(): Promise<Array<{ symbol: string; code: SeqCode }>> {
    await this.registry.load();
    if (!this.seqr && !this.link) return [];
    const answers = await this.ask('markets', () => this.configureMarkets());
    if (this.seqr) this.link?.publish({ kind: 'markets' });
    return answers;
  }

  /** Group commit: whatever queued while the previous batch was journaled forms the next batch. */
  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length && !this.stopped) {
        // Backpressure: with this many commands not yet projected the next journal write waits for
        // the projector, so answers slow down before the lag grows (the hard bound refuses, above).
        while (this.unprojected >= this.config.engine.projectAhead && !this.stopped) await this.projectedTo(this.projected + 1);
        if (this.stopped) break;
        const batch = this.queue.splice(0, this.config.engine.maxBatch);
        const seq = this.journaled + 1;
        const ts = Math.max(Date.now(), this.lastTs);
        const t0 = performance.now();
        const token = this.lease?.current;
        if (this.lease && token === undefined) {
          // The lease ran out before a renewal (a pause, or the database out of reach): not the sequencer any more.
          // Stepping down first stops the command stream, so forwarded requests stay pending for the next holder.
          this.stepDown('the lease expired before this batch was journaled');
          for (const p of batch) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
          break;
        }
        try {
          await this.journal.append({ seq, ts, commands: batch.map((p) => p.cmd) }, token);
          if (this.journalMs.length < 200_000) {
            this.journalMs.push(performance.now() - t0);
            this.journalSizes.push(batch.length);
          }
        } catch (err) {
          if (err instanceof FencedError) {
            // A new holder took over: this batch was not written; forwarded requests stay pending for it, local callers hear "busy".
            this.stepDown(err.message);
            for (const p of batch) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
            break;
          }
          // Committed or not, we cannot tell: take nothing more until a restart replays the journal as it is.
          this.halt('journal write failed', err, batch);
          break;
        }
        this.journaled = seq;
        this.lastTs = ts;
        this.apply(seq, ts, batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private apply(seq: number, ts: number, batch: Pending[]): void {
    const seqr = this.seqr!;
    seqr.beginBatch(seq, ts);
    let outcomes: SeqOutcome[];
    try {
      outcomes = batch.map((p) => seqr.apply(p.cmd));
    } catch (err) {
      // A broken invariant (never a business outcome): the state is suspect; a restart rebuilds it from the journal.
      this.halt('sequencer invariant broken', err, batch);
      return;
    }
    const books = new Set<number>();
    const ticks = new Map<number, ReturnType<typeof tradeTick>[]>();
    outcomes.forEach((o, i) => {
      for (const u of o.users) this.userSeq.set(u, seq);
      for (const ord of o.orders) if (ord.status !== 'waiting') this.closedOwners.set(ord.id, ord.userId);
      for (const b of o.books) books.add(b);
      for (const t of o.trades) {
        const list = ticks.get(t.marketId) ?? [];
        list.push(tradeTick(this.registry, t));
        ticks.set(t.marketId, list);
      }
      batch[i].resolve({ outcome: o, seq });
    });
    while (this.closedOwners.size > CLOSED_REMEMBERED) this.closedOwners.delete(this.closedOwners.keys().next().value!);
    for (const list of ticks.values()) this.bus.emit('trades', list, seq);
    for (const b of books) this.bus.emit('book', b);
    this.applied.push({ seq, ts, outcomes, at: performance.now() });
    this.unprojected += batch.length;
    this.replica?.journaled(seq);
  }

  private halt(what: string, err: unknown, batch: Pending[]): void {
    this.stopped = true;
    this.logger.fatal({ err }, `${what}: the sequencer takes no more commands until it restarts`);
    for (const p of [...batch, ...this.queue.splice(0)]) p.reject(new BusinessError(ErrorCode.MARKET_BUSY));
    // A split engine hands over instead: the lease is released, and whichever engine takes it (this one too) rebuilds from the journal.
    if (this.role === 'engine') void this.lease?.release().finally(() => this.stepDown(what));
  }
}

function paramsOf(m: MarketInfo): MarketParams {
  return {
    id: m.id,
    symbol: m.symbol,
    baseId: m.base.id,
    quoteId: m.quote.id,
    tickSize: m.tickSize,
    lotSize: m.lotSize,
    makerFee: m.makerFee,
    takerFee: m.takerFee,
  };
}

function sameParams(a: MarketParams | undefined, b: MarketParams): boolean {
  return !!a && (Object.keys(b) as Array<keyof MarketParams>).every((k) => a[k] === b[k]);
}
