import { createMarket } from '@kestrel/matching-engine';
import { DataSource } from 'typeorm';
import type { JournalSignal } from './journal-signal';
import { JournalWriter } from './journal-writer';
import type { MarketInfo } from './market-registry.service';
import { AppliedBatch, MarketLookup, ProjectionBlocked, ProjectionConflict, Projector, unitsOf } from './projector';
import { rebuild } from './recovery';
import type { MarketParams, SeqCommand } from './sequencer/commands';
import type { Sequencer } from './sequencer/sequencer';
import { Snapshotter } from './snapshotter';

export type ReplicaMarket = Pick<MarketInfo, 'id' | 'symbol' | 'tickSize' | 'lotSize' | 'minQty'>;

export interface ReplicaOptions {
  /** Most commands per projection transaction (whole batches). */
  projectBatch: number;
  /** Commands between snapshots. */
  snapshotEvery: number;
  /**
   * How long the projector waits once work arrives before it reads the journal (ms, 0: at once), so
   * that one transaction carries the batches of that whole time instead of one each: under light
   * load group commit journals many small batches, and each projection transaction pays its round
   * trips and commit. A read waiting for the watermark cuts the wait short (`flush`).
   */
  projectLingerMs: number;
}

/**
 * What the replica tells its host: the watermark moved, projection keeps failing, or it has waited
 * `ms` for the watermark row that another session holds (ProjectionBlocked; not a failure, but
 * nothing is projected meanwhile).
 */
export type ReplicaEvent = { kind: 'projected'; seq: number } | { kind: 'failed'; error: string } | { kind: 'blocked'; ms: number };

/** When a projection blocked on the watermark row is worth a warning: after `firstMs`, then every `everyMs`, until one goes through. */
export class BlockedWatch {
  private since?: number;
  private next = 0;

  constructor(
    private readonly firstMs = 1000,
    private readonly everyMs = 10_000,
  ) {}

  /** A blocked attempt at `now`: how long projection has been blocked when a warning is due, else undefined. */
  blocked(now: number): number | undefined {
    if (this.since === undefined) {
      this.since = now;
      this.next = now + this.firstMs;
    }
    if (now < this.next) return undefined;
    this.next = now + this.everyMs;
    return now - this.since;
  }

  /** A projection went through. */
  clear(): void {
    this.since = undefined;
  }
}

const READ_ROWS = 64;

/**
 * The markets as the journal has set them (`journaled`: the replica's own copy of the sequencer,
 * which has applied a market's command before any of its trades, and each later change of its
 * units), else as known at start. The projector converts what the replica applied with the units
 * each command was applied with (`applyBatch`); this is for batches that do not carry them.
 */
export function marketLookup(markets: ReplicaMarket[], journaled?: (id: number) => MarketParams | undefined): MarketLookup {
  const byId = new Map(markets.map((m) => [m.id, { engine: createMarket({ symbol: m.symbol, tickSize: m.tickSize, lotSize: m.lotSize, minQty: m.minQty }) }]));
  return {
    byIdOrUndefined: (id) => {
      const p = journaled?.(id);
      return p ? { engine: unitsOf(p) } : byId.get(id);
    },
  };
}

/**
 * Applies a journaled batch to the replica's sequencer: its outcomes, each place's with its
 * market's parameters as they were when it was applied (AppliedBatch.markets: the units of its
 * order and trades; a `market` command later in the batch, or in the batches projected with it,
 * may change them).
 */
export function applyBatch(seqr: Sequencer, seq: number, ts: number, commands: SeqCommand[]): AppliedBatch {
  seqr.beginBatch(seq, ts);
  let markets: Array<MarketParams | undefined> | undefined;
  const outcomes = commands.map((c, i) => {
    const o = seqr.apply(c);
    if (c.t === 'place' && (o.created || o.trades.length)) (markets ??= new Array<MarketParams | undefined>(commands.length))[i] = seqr.market(c.marketId);
    return o;
  });
  return { seq, ts, outcomes, markets };
}

/**
 * The projector as a replica of the sequencer (a replicated state machine, as LMAX's journal
 * replayers): it reads the journal after its watermark, applies each batch to its own copy of the
 * sequencer (the same pure code, so the same outcomes), and writes those outcomes with the
 * watermark in one transaction (`Projector`). It takes the snapshots too: its state at its
 * watermark is exactly what recovery needs. It shares nothing with the sequencer's host but the
 * database, so it runs on a thread of its own (`ProjectorThread`) and the host's event loop only
 * journals, applies and answers.
 */
export class ProjectionReplica {
  private seqr?: Sequencer;
  private readonly journal: JournalWriter;
  private readonly snapshots: Snapshotter;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  /** Ends the linger early: a read waits for the watermark, or the replica stops. */
  private cut?: () => void;
  /** Reads wait for the watermark to reach this: up to it, no lingering. */
  private urgentTo = 0;
  private head = 0;
  private sinceSnapshot = 0;
  /** A snapshot being written (one at a time). */
  private saving?: Promise<void>;
  private readonly blockedWatch = new BlockedWatch();

  /**
   * `signal` (the projector thread): the host's journaled head in shared memory, read before each
   * wait for work; the host wakes the replica only while it waits (`JournalSignal`).
   */
  constructor(
    private readonly dataSource: DataSource,
    readonly projector: Projector,
    private readonly options: ReplicaOptions,
    private readonly emit: (e: ReplicaEvent) => void,
    private readonly signal?: JournalSignal,
  ) {
    this.journal = new JournalWriter(dataSource);
    this.snapshots = new Snapshotter(dataSource);
  }

  /** From the newest snapshot at or below the watermark (the host made sure one exists: genesis at least). */
  async start(): Promise<void> {
    const watermark = await this.projector.watermark();
    // Batches between the snapshot and the watermark are applied again but not projected twice.
    const { seqr } = await rebuild({ journal: this.journal, snapshots: this.snapshots }, watermark, { until: watermark, chunk: READ_ROWS });
    this.seqr = seqr;
    this.running = true;
    this.loop = this.run();
  }

  /** A market's parameters as the journal has set them so far. */
  market(id: number): MarketParams | undefined {
    return this.seqr?.market(id);
  }

  /** The host journaled up to `seq`: there is work. */
  journaled(seq: number): void {
    if (seq > this.head) this.head = seq;
    this.wake?.();
  }

  /** A read waits for the watermark to reach `seq`: project up to it without lingering. */
  flush(seq: number): void {
    if (seq > this.urgentTo) this.urgentTo = seq;
    this.cut?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.cut?.();
    this.wake?.();
    await this.loop;
    await this.saving;
  }

  /** Waits `projectLingerMs`, unless a read is waiting (then not at all) or until one starts to, or a whole read is already there. */
  private async linger(seq: number): Promise<void> {
    if (this.options.projectLingerMs <= 0 || this.urgentTo > seq || this.head - seq >= READ_ROWS || !this.running) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.options.projectLingerMs);
      this.cut = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.cut = undefined;
  }

  private async run(): Promise<void> {
    const seqr = this.seqr!;
    let failures = 0;
    while (this.running) {
      // About to wait: the host's head in shared memory first (then the host wakes it only while it waits).
      if (this.head <= seqr.seq && this.signal) this.head = Math.max(this.head, this.signal.waiting());
      if (this.head <= seqr.seq) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          // The host's kicks are the fast path; this catches a journal written by anyone else.
          setTimeout(resolve, 200);
        });
        this.wake = undefined;
        if (this.head <= seqr.seq) this.head = Math.max(this.head, await this.journal.head());
        continue;
      }
      this.signal?.working();
      await this.linger(seqr.seq);
      const rows = await this.journal.after(seqr.seq, READ_ROWS);
      if (!rows.length) {
        this.head = seqr.seq;
        continue;
      }
      // Whole batches, up to `projectBatch` commands per transaction (at least one batch).
      let i = 0;
      while (i < rows.length && this.running) {
        let commands = 0;
        let j = i;
        while (j < rows.length && (j === i || commands + rows[j].commands.length <= this.options.projectBatch)) commands += rows[j++].commands.length;
        const chunk = rows.slice(i, j);
        // Applied once; a failed projection is retried with the same outcomes.
        let applied = chunk.map((b) => applyBatch(seqr, b.seq, b.ts, b.commands));
        for (;;) {
          try {
            await this.projector.project(applied);
            failures = 0;
            this.blockedWatch.clear();
            break;
          } catch (err) {
            if (err instanceof ProjectionConflict && err.watermark >= applied[0].seq) {
              // Another projector (a previous engine's, still finishing) wrote some of these: the same rows, as the
              // journal is the same. Project only what is past its watermark.
              applied = applied.filter((b) => b.seq > err.watermark);
              if (!applied.length) break;
              continue;
            }
            // Another projection holds the watermark (a stuck one past the lease was ended): waiting is not failing,
            // but the host hears of a long wait (a holder that is not ours to end: another role, or a projection waiting on a lock).
            if (err instanceof ProjectionBlocked && this.running) {
              const ms = this.blockedWatch.blocked(Date.now());
              if (ms !== undefined) this.emit({ kind: 'blocked', ms });
              continue;
            }
            if (++failures >= 5 || !this.running) {
              // Journaled means acknowledged: a restart projects what could not be projected now.
              this.running = false;
              this.emit({ kind: 'failed', error: err instanceof Error ? err.message : String(err) });
              return;
            }
            await new Promise((r) => setTimeout(r, 50 * 2 ** failures));
          }
        }
        this.emit({ kind: 'projected', seq: chunk[chunk.length - 1].seq });
        this.sinceSnapshot += commands;
        if (this.sinceSnapshot >= this.options.snapshotEvery && !this.saving) {
          this.sinceSnapshot = 0;
          // The state is taken now (this batch) and written on a connection of its own while projection goes on.
          this.saving = this.snapshots
            .save(seqr.snapshot())
            .catch(() => undefined)
            .finally(() => (this.saving = undefined));
        }
        i = j;
      }
    }
  }
}
