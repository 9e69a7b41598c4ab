import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { OrderBook } from '@kestrel/matching-engine';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, role } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode, ErrorCodeValue } from '../../infra/http/error-codes';
import { ClosedOwners } from './closed-owners';
import { EngineBus, type OrderUpdate } from './engine-bus';
import { EngineLease } from './engine-lease';
import { EngineLink, EngineReply, EngineRequest, LinkEvent, processId } from './engine-link';
import { GroupCommit, Queued } from './group-commit';
import { JournalWriter } from './journal-writer';
import { LeaseKeeper } from './lease-keeper';
import { MarketInfo, MarketRegistry } from './market-registry.service';
import { ProjectionReplica, ReplicaEvent } from './projection-replica';
import { Projector } from './projector';
import { ProjectorThread } from './projector-thread';
import { rebuild } from './recovery';
import { GcPauses, LoopDelay } from './samples';
import type { Balance } from './sequencer/balances';
import type { MarketParams, SeqCode, SeqCommand, SeqOutcome, TradeRecord } from './sequencer/commands';
import type { Sequencer } from './sequencer/sequencer';
import { Snapshotter } from './snapshotter';
import { type BatchPushes, pushesOf, Watermarks } from './watermarks';

/**
 * The sequencer's host (DESIGN §6): the wiring of the pipeline's stages, each its own class with
 * its test beside it. Commands queue in the `GroupCommit`, which journals each batch in one row
 * (`JournalWriter`); the pure `Sequencer` then applies it in memory (`apply`, here) and every
 * caller gets its full result at once; market data follows. The projection replica
 * (`ProjectionReplica`, on its own thread in the built app) replays the journal and writes the
 * read tables and the snapshots behind; only sequence numbers cross, and `Watermarks` follows
 * them (pushes, the lag bound, reads that must see a user's own writes: `settledFor`). On start
 * (`recover`): the newest snapshot at or below the projector's watermark, then the journal
 * replayed to its head. The host also holds the lease (one sequencer among the processes) and
 * forwards commands to its holder when it is not this process (split roles).
 */
/** How long ROLE=all waits before rebuilding the sequencer after a failure, and between attempts. */
export const REBUILD_RETRY_MS = 5000;

@Injectable()
export class EngineHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EngineHost');
  /** The stages (public for the crash and fault tests). */
  readonly journal: JournalWriter;
  readonly projector: Projector;
  readonly snapshots: Snapshotter;
  private seqr?: Sequencer;
  /** This term's group commit (while this process holds the sequencer). */
  private commits?: GroupCommit;
  private readonly marks: Watermarks;
  private closed = false;
  /** Between a rebuild and its projection reaching the recovered head (settled). */
  private catchingUp = false;
  /** The rebuild running (`recover`). */
  private rebuilding?: Promise<void>;
  /** The rebuild a failure scheduled (ROLE=all), until it runs or another rebuild makes it needless. */
  private rebuildTimer?: NodeJS.Timeout;
  /** The lease with its fencing token (ROLE=all and engine); the transport to the lease holder (split roles). */
  private lease?: EngineLease;
  private keeper?: LeaseKeeper;
  private link?: EngineLink;
  private readonly ownerHooks: Array<() => Promise<void> | void> = [];
  /** Run at the end of this one's shutdown (whenStopped). */
  private readonly stopHooks: Array<() => Promise<void>> = [];
  private readonly role = role();
  /** The projection replica: on its own thread in the built app, in-process on the sources (tests). */
  private replica?: ProjectorThread | ProjectionReplica;
  /** Owners of orders this process saw leave their book (the recent ones): a late cancel is answered "closed" without waiting for the projector. */
  private readonly closedOwners = new ClosedOwners();
  /** This process's event-loop delay, for `stats` (admin/engine). */
  private readonly loopDelay = new LoopDelay();
  /** This process's main-thread GC pauses, for `stats` (admin/engine). */
  private readonly gcPauses = new GcPauses();
  /** The highest sequence this process has asked the engine's projector not to linger up to (split roles). */
  private hurried = 0;
  /** The answerer of `mark` requests (`answerMarks`). */
  private markNow?: (marketId: number) => Promise<unknown>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: MarketRegistry,
    private readonly bus: EngineBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.journal = new JournalWriter(dataSource);
    this.projector = new Projector(dataSource, registry);
    this.snapshots = new Snapshotter(dataSource);
    // A read waiting for the watermark: the projector does not linger up to it.
    this.marks = new Watermarks((seq) => this.hurry(seq));
  }

  /**
   * Asks the projector not to linger up to `seq`: this process's replica, or (an api process of the
   * split roles) the engine's, by one `hurry` on the engine link per sequence not asked for yet.
   */
  private hurry(seq: number): void {
    if (this.replica) return this.replica.flush(seq);
    if (seq <= this.hurried) return;
    this.hurried = seq;
    this.link?.publish({ kind: 'hurry', seq });
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
      const watermark = await this.projector.watermark();
      this.marks.reset(watermark, watermark);
      return;
    }
    this.lease = lease;
    this.keeper = new LeaseKeeper(lease, {
      gained: () => this.becomeOwner(),
      lost: (reason) => this.stepDown(reason),
      log: (level, message) => this.logger[level](message),
    });
    // ROLE=all is meant to run the sequencer: the lease of its own previous run (a kill -9) expires within leaseMs.
    await this.keeper.start(this.role === 'all');
  }

  /**
   * The lease is ours: rebuild from snapshot + journal, serve the command stream, and start what
   * runs beside the sequencer only. Every journal write carries the lease's fencing token.
   */
  private async becomeOwner(): Promise<void> {
    try {
      await this.recover();
    } catch (err) {
      // Nothing half-built keeps running (the keeper gives the lease up; a later take-over starts afresh).
      await this.forget()
        ?.stop()
        .catch(() => undefined);
      throw err;
    }
    this.link?.serve(this.link.processId, (req) => this.serveRequest(req));
    for (const hook of this.ownerHooks) await Promise.resolve(hook()).catch((err) => this.logger.warn({ err }, 'a task beside the sequencer failed to start'));
  }

  /**
   * Not the sequencer any more (the lease was lost or a journal write was fenced): take nothing,
   * drop the state (the new holder rebuilds it from the journal), and wait as a standby.
   */
  private stepDown(reason: string): void {
    if (!this.seqr) return;
    this.logger.warn(`stepping down: ${reason}`);
    void this.link?.stopServing();
    void this.forget()?.stop();
    this.keeper?.stepDown();
  }

  /** Drops the sequencer's state (the next holder rebuilds it from the journal); the replica, for the caller to stop. */
  private forget(): ProjectionReplica | ProjectorThread | undefined {
    this.commits?.retire();
    this.marks.drop();
    const replica = this.replica;
    this.replica = undefined;
    this.seqr = undefined;
    this.commits = undefined;
    return replica;
  }

  /**
   * The price now of a market, from the process that holds the books: `local` here when it is this
   * one, else the holder's answerer (`answerMarks`) over the command stream (split roles), so an api
   * process deals at the last trade price as the engine does, never at an older recorded tick.
   */
  markFromOwner<T>(marketId: number, local: () => Promise<T>): Promise<T> {
    return this.ask('mark', local, marketId);
  }

  /** What answers `markFromOwner` for the other processes while this one holds the books (the mark price service). */
  answerMarks(fn: (marketId: number) => Promise<unknown>): void {
    this.markNow = fn;
  }

  /** Runs `fn` in this service's shutdown once it stopped answering the other processes, before it gives the lease up (a service it serves closes its connections then). */
  whenStopped(fn: () => Promise<void>): void {
    this.stopHooks.push(fn);
  }

  /** Runs `fn` in the process that holds the sequencer: now if this is it, else if and when it takes over. */
  async whenOwner(fn: () => Promise<void> | void): Promise<void> {
    this.ownerHooks.push(fn);
    if (this.owner) await fn();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.keeper?.close();
    this.loopDelay.stop();
    this.gcPauses.stop();
    // Let batches in flight finish so every acknowledged command is projected (a restart would anyway).
    try {
      for (let i = 0; i < 200 && (this.commits?.busy || this.marks.unprojected) && !this.stopped; i++) await new Promise((r) => setTimeout(r, 20));
      await this.link?.stopServing();
      await this.replica?.stop();
    } finally {
      // Before the lease is given up: nothing written beside the sequencer from here once another process holds it.
      for (const hook of this.stopHooks) await hook().catch((err) => this.logger.warn({ err }, 'a task beside the sequencer failed to stop'));
    }
    await this.keeper?.release().catch(() => undefined);
    await this.lease?.close();
    await this.journal.close();
    await this.link?.close();
  }

  /** A request from an api or worker process (the command stream): run here, answered with the batch it joined. */
  private async serveRequest(req: EngineRequest): Promise<EngineReply> {
    if (req.ctl === 'markets') return { id: req.id, result: await this.marketsChanged() };
    if (req.ctl === 'stats') return { id: req.id, result: await this.stats() };
    if (req.ctl === 'mark') {
      if (!this.seqr || !this.markNow) throw new BusinessError(ErrorCode.MARKET_BUSY);
      return { id: req.id, result: await this.markNow(req.marketId!) };
    }
    const commits = this.taking(req.cmd!);
    if (!commits) throw new BusinessError(ErrorCode.MARKET_BUSY);
    // A forwarded place's deadline, on the clock its batch will be journaled with: its lifetime less
    // what it waited in the stream (EngineLink: both on Redis's clock, never the api's against ours).
    const cmd =
      req.cmd!.t === 'place' && req.ttlMs !== undefined ? { ...req.cmd!, notAfter: commits.batchClock() + req.ttlMs - (req.waitedMs ?? 0) } : req.cmd!;
    const { outcome, seq } = await commits.submitWithSeq(cmd);
    return { id: req.id, seq, outcome };
  }

  /** What the other processes tell each other (pub/sub): the projector's watermark, new markets, outbox work. */
  private onLinkEvent(e: LinkEvent): void {
    if (e.kind === 'projected') {
      if (!this.seqr && this.marks.advance(e.seq, performance.now())) this.bus.emit('projected', e.seq);
    } else if (e.kind === 'markets') {
      if (!this.seqr) void this.registry.load();
    } else if (e.kind === 'outbox') {
      if (this.seqr) this.bus.emit('outbox');
    } else if (e.kind === 'hurry') {
      this.replica?.flush(e.seq);
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

  /**
   * The owner, with its projection caught up with what it recovered: what retries a command by
   * looking at its projected result first (the outbox relay, the withdrawal, flash and NFT sweeps)
   * waits for this, else it finds nothing projected yet and sends again a command the journal holds,
   * which the sequencer may no longer recognise (its dedup window is counted in batch time).
   */
  get settled(): boolean {
    return this.owner && !this.catchingUp;
  }

  book(marketId: number): OrderBook | undefined {
    return this.seqr?.book(marketId);
  }

  lastTradePrice(marketId: number): number | undefined {
    return this.seqr?.lastTradePrice(marketId);
  }

  /** The lease's fencing token this process holds (undefined without a lease): writes made beside the journal from the books (mark ticks) carry it too. */
  fencingToken(): number | undefined {
    return this.lease?.current;
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
    return { journaled: this.marks.journaled, projected: this.marks.projected };
  }

  /**
   * Where the pipeline stands, for a stall's log line: its positions, the commands not projected yet
   * and what the group commit has been waiting on (a journal write, the projector) and for how long.
   */
  pipelineState(): string {
    const m = this.marks;
    const w = this.commits?.waiting();
    const waiting = !this.commits ? 'not the sequencer here' : w ? `waiting ${w.ms} ms on ${w.on}, ${w.queued} commands queued` : 'waiting on nothing';
    return `journaled ${m.journaled}, projected ${m.projected}, ${m.unprojected} commands not projected; ${waiting}`;
  }

  /**
   * The pipeline's positions and the projector's lag (from a batch's answer to its projection's
   * commit) since the last call: what the operator endpoint and the benchmarks print.
   */
  stats(): Promise<ReturnType<EngineHost['localStats']>> {
    return this.ask('stats', () => this.localStats());
  }

  private localStats() {
    const none = { samples: 0, p50: 0, p99: 0, max: 0 };
    return {
      role: this.role,
      fencing_token: this.lease?.current ?? null,
      journaled: this.marks.journaled,
      projected: this.marks.projected,
      unprojected_commands: this.marks.unprojected,
      projector_lag_ms: this.marks.lags.take(),
      journal_write_ms: this.commits?.writeMs.take() ?? none,
      commands_per_journal_row: this.commits?.sizes.take() ?? none,
      command_ms: this.commits?.commandMs.take() ?? none,
      backpressure_ms: { commands: this.commits?.heldMs.commands.take() ?? none, age: this.commits?.heldMs.age.take() ?? none },
      event_loop_delay_ms: this.loopDelay.take(),
      gc_pauses: this.gcPauses.take(),
    };
  }

  /**
   * Journals, applies and answers one command (in the next group commit): here when this process
   * holds the sequencer, else forwarded to the holder over the command stream (split roles).
   */
  submit(cmd: SeqCommand): Promise<SeqOutcome> {
    if (!this.seqr && this.link) return this.forward(this.link, cmd);
    // Here: the group commit's own promise is the answer (no async frame around it).
    const commits = this.taking(cmd);
    if (!commits) return Promise.reject(new BusinessError(ErrorCode.MARKET_BUSY));
    return commits.submit(cmd);
  }

  /**
   * This term's group commit, when it takes `cmd` now, submitted here or forwarded (none: 2105): this
   * process holds the sequencer and is not shutting down; and not a posting while the projection
   * catches up with what was recovered: after an outage longer than the dedup window the first new
   * batch forgets the recovered ids, and the projected result a retry looks for first (`applied`)
   * may not be there yet. Its callers try again by command id.
   */
  private taking(cmd: SeqCommand): GroupCommit | undefined {
    if (this.closed || (cmd.t === 'post' && this.catchingUp)) return undefined;
    return this.commits;
  }

  private async forward(link: EngineLink, cmd: SeqCommand): Promise<SeqOutcome> {
    const reply = await link.ask({ cmd }, this.config.engine.forwardTimeoutMs);
    if (reply.error !== undefined) throw new BusinessError(reply.error as ErrorCodeValue);
    const outcome = reply.outcome!;
    this.marks.answered(outcome.users, reply.seq!);
    return outcome;
  }

  /** A control request answered by the sequencer's process (here, or over the command stream). */
  private async ask<T>(ctl: NonNullable<EngineRequest['ctl']>, local: () => Promise<T> | T, marketId?: number): Promise<T> {
    if (this.seqr || !this.link) return local();
    const reply = await this.link.ask({ ctl, marketId }, this.config.engine.forwardTimeoutMs);
    if (reply.error !== undefined) throw new BusinessError(reply.error as ErrorCodeValue);
    return reply.result as T;
  }

  /** The sequencer refuses commands until a restart (`recover`): a journal write whose fate is unknown, a broken invariant, or projection failing. */
  private get stopped(): boolean {
    return this.commits?.halted ?? false;
  }

  /** Resolves once everything journaled for this user is projected; undefined when nothing is pending (no promise to wait on). */
  settledFor(userId: number): Promise<void> | undefined {
    return this.marks.settledFor(userId);
  }

  /** A command of these users was applied at batch `seq` (learnt from the outbox): their reads here wait for its projection. */
  wroteFor(users: readonly number[], seq: number): void {
    this.marks.answered(users, seq);
  }

  /** Resolves once everything submitted so far is journaled, applied and projected. */
  async idle(): Promise<void> {
    while (this.commits?.busy) await new Promise((r) => setTimeout(r, 2));
    await this.marks.waitFor(this.marks.journaled);
  }

  /**
   * Forgets the state and rebuilds it (start-up, and the crash tests): the newest snapshot at or
   * below the projector's watermark, then every journaled batch after it, applied again; the
   * batches past the watermark are projected (exactly once: the watermark moves in their transaction).
   */
  async recover(): Promise<void> {
    // One at a time (a rebuild after a failure, and one asked for meanwhile).
    while (this.rebuilding) await this.rebuilding.catch(() => undefined);
    const run = this.rebuild();
    this.rebuilding = run;
    try {
      await run;
    } finally {
      if (this.rebuilding === run) this.rebuilding = undefined;
    }
  }

  private async rebuild(): Promise<void> {
    // This rebuild is the one a failure scheduled, or makes it needless (regression: it ran anyway, a second rebuild).
    clearTimeout(this.rebuildTimer);
    this.rebuildTimer = undefined;
    if (this.seqr && !this.stopped) await this.idle();
    await this.replica?.stop();
    this.replica = undefined;
    this.seqr = undefined;
    this.commits?.retire();
    this.commits = undefined;
    this.closed = false;
    this.catchingUp = true;
    await this.journal.open();
    const watermark = await this.projector.watermark();
    // This copy answers and pushes; the projection replica's copy writes the ledger.
    const { seqr, snapshot, replayed, lastTs } = await rebuild(
      { journal: this.journal, snapshots: this.snapshots, genesis: () => this.snapshots.genesis() },
      watermark,
      { postings: false },
    );
    this.marks.reset(seqr.seq, watermark);
    this.seqr = seqr;
    const { maxBatch, projectAhead, projectAheadMs, maxUnprojected, journalIntervalMs } = this.config.engine;
    this.commits = new GroupCommit(
      this.journal,
      this.marks,
      { maxBatch, projectAhead, projectAheadMs, maxUnprojected, journalIntervalMs, heldRefuseMs: this.config.engine.heldRefuseMs },
      {
        lease: this.lease,
        apply: (seq, ts, batch) => this.apply(seq, ts, batch),
        lost: (reason) => this.stepDown(reason),
        failed: (what, err) => this.failed(what, err),
      },
      lastTs,
    );
    this.logger.log(`sequencer at batch ${seqr.seq} (snapshot ${snapshot}, ${replayed} batches replayed); replay hash ${seqr.hash()}`);
    // The projector catches up from its own watermark (what the crash left unprojected is projected now, once).
    await this.startReplica();
    if (seqr.seq > watermark) {
      this.replica!.journaled(seqr.seq);
      await this.marks.waitFor(seqr.seq);
    }
    this.catchingUp = false;
    this.bus.emit('rebuilt');
    // A market row changed in a way the sequencer refuses (its units while orders rest, a tick size
    // its last trade price is no whole number of) would be read with the row's units everywhere else
    // (the registry, the projector, the mark price) and the sequencer's old ones inside: no start.
    const refused = (await this.configureMarkets()).filter((a) => a.code !== 'OK');
    if (refused.length)
      throw new Error(
        `market parameters refused by the sequencer: ${refused.map((a) => `${a.symbol} (${a.code})`).join(', ')}; put the markets rows back (docs/operations.md, "The sequencer")`,
      );
    // The api processes read the markets rows when they started: a row changed since (a new tick or lot
    // on an empty book takes effect now) is reloaded there too, as after an operator's listing.
    this.link?.publish({ kind: 'markets' });
  }

  private async startReplica(): Promise<void> {
    const { projectBatch, projectLingerMs, snapshotEvery } = this.config.engine;
    // Only this replica's events count: one stopped on a step-down may still report as it ends.
    const onEvent = (e: ReplicaEvent) => {
      if (this.replica === replica) this.onReplica(e);
    };
    const replica =
      this.config.engine.projectorThread && ProjectorThread.available()
        ? new ProjectorThread(
            {
              databaseUrl: this.config.databaseUrl,
              markets: this.registry.all().map(({ id, symbol, tickSize, lotSize, minQty }) => ({ id, symbol, tickSize, lotSize, minQty })),
              projectBatch,
              projectLingerMs,
              snapshotEvery,
              idleTransactionMs: this.config.engine.leaseMs,
              nice: this.config.engine.projectorNice,
            },
            onEvent,
          )
        : new ProjectionReplica(this.dataSource, this.projector, { projectBatch, projectLingerMs, snapshotEvery }, onEvent);
    this.replica = replica;
    await replica.start();
    if (replica instanceof ProjectorThread && this.config.engine.projectorNice > 0)
      this.logger.log(`projector thread at nice ${replica.nice ?? `0 (could not be lowered to ${this.config.engine.projectorNice})`}`);
  }

  /** The projector moved its watermark (pushes go out, reads waiting for it go on), or gave up. */
  private onReplica(e: ReplicaEvent): void {
    if (e.kind === 'blocked') {
      this.logger.warn(`projection has waited ${Math.round(e.ms)} ms for the watermark row, held by a session it may not end (docs/operations.md)`);
      return;
    }
    if (e.kind === 'failed') {
      this.commits?.stop();
      this.marks.releaseAll();
      // As a failed journal write: reported, and a split engine hands over (the next holder projects from the watermark).
      this.failed('projection keeps failing', e.error);
      return;
    }
    const done = this.marks.advance(e.seq, performance.now());
    if (!done) return;
    this.pushProjected(done);
    this.bus.emit('projected', e.seq);
    this.link?.publish({ kind: 'projected', seq: e.seq });
  }

  /** Projected batches' order and balance pushes (after the projection: a screen that reloads on them reads what they say). */
  private pushProjected(done: readonly BatchPushes[]): void {
    const users = new Set<number>();
    const orders: OrderUpdate[] = [];
    for (const b of done) {
      for (const ord of b.orders) orders.push(ord);
      for (const u of b.users) users.add(u);
    }
    if (orders.length) this.bus.emit('orders', orders);
    for (const u of users) this.bus.emit('balance', u);
  }

  /** Market parameters change only through the journal: a market added or re-priced in the database is journaled here. */
  private async configureMarkets(): Promise<Array<{ symbol: string; code: SeqCode }>> {
    const changed = this.registry.all().filter((m) => !sameParams(this.seqr!.market(m.id), paramsOf(m)));
    return Promise.all(
      changed.map(async (m) => {
        const r = await this.submit({ t: 'market', market: paramsOf(m), v: 3 });
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
    const before = new Map(this.registry.all().map((m) => [m.id, m]));
    await this.registry.load();
    if (!this.seqr && !this.link) return [];
    const answers = await this.ask('markets', () => this.configureMarkets());
    // A change the sequencer refused (a market row edited while orders rest) is not read here either:
    // the market keeps the units it trades with until the row is put back (a start refuses it).
    const refused = answers.filter((a) => a.code !== 'OK').map((a) => before.get(this.registry.find(a.symbol)?.id ?? 0));
    this.registry.keep(refused.filter((m): m is MarketInfo => m !== undefined));
    if (this.seqr) this.link?.publish({ kind: 'markets' });
    return answers;
  }

  /** A batch is journaled: applied in memory, every caller answered, market data pushed; its projection follows. */
  private apply(seq: number, ts: number, batch: Queued[]): void {
    const seqr = this.seqr!;
    seqr.beginBatch(seq, ts);
    let outcomes: SeqOutcome[];
    try {
      outcomes = batch.map((p) => seqr.apply(p.cmd));
    } catch (err) {
      // A broken invariant (never a business outcome): the state is suspect; a restart rebuilds it from the journal.
      this.commits!.stop(batch);
      this.failed('sequencer invariant broken', err);
      return;
    }
    // Its users' reads wait for its projection from now on (before any caller goes on); one the
    // projector has reported already (it read the journal's head before this answer came) pushes now.
    const projected = !this.marks.applied({ seq, ts, outcomes }, performance.now());
    const books = new Set<number>();
    const trades = new Map<number, TradeRecord[]>();
    outcomes.forEach((o, i) => {
      for (const ord of o.orders) if (ord.status !== 'waiting') this.closedOwners.set(ord.id, ord.userId);
      for (const b of o.books) books.add(b);
      for (const t of o.trades) {
        const list = trades.get(t.marketId);
        if (list) list.push(t);
        else trades.set(t.marketId, [t]);
      }
      batch[i].done(o, seq);
    });
    for (const list of trades.values()) this.bus.emit('trades', list, seq);
    for (const b of books) this.bus.emit('book', b);
    if (projected) {
      this.pushProjected([pushesOf({ seq, ts, outcomes })]);
      // Its `projected` went out before its trades did: again now, or its candles and the tickers would wait for the next batch's.
      if (trades.size) this.bus.emit('projected', seq);
    }
    this.replica?.journaled(seq);
  }

  /** The group commit stopped (a journal write of unknown fate, a broken invariant): reported; a split engine hands over. */
  private failed(what: string, err: unknown): void {
    this.logger.fatal({ err }, `${what}: the sequencer takes no more commands until it is rebuilt from the journal`);
    // A split engine hands over instead: the lease is released, and whichever engine takes it (this one too) rebuilds from the journal.
    if (this.role === 'engine') void this.keeper?.release().finally(() => this.stepDown(what));
    else this.rebuildLater(what);
  }

  /**
   * ROLE=all after a failure: the state is dropped at once (it may lack a batch the journal holds, a
   * write of unknown fate that committed: nothing reads it, no mark price is sampled from it), and
   * rebuilt from the journal as a restart would, every REBUILD_RETRY_MS until that succeeds (the
   * journal's connection open again, the projection going on).
   */
  private rebuildLater(what: string): void {
    void this.forget()
      ?.stop()
      .catch(() => undefined);
    const attempt = () => {
      this.rebuildTimer = undefined;
      if (this.closed || this.seqr) return;
      this.recover().then(
        () => this.logger.warn(`the sequencer was rebuilt from the journal after: ${what}`),
        (err: unknown) => {
          this.logger.error({ err }, `rebuilding the sequencer failed; trying again in ${REBUILD_RETRY_MS} ms`);
          later();
        },
      );
    };
    const later = () => {
      clearTimeout(this.rebuildTimer);
      this.rebuildTimer = setTimeout(attempt, REBUILD_RETRY_MS).unref();
    };
    later();
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
