import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { NotSentError } from '../../infra/database/own-connection';
import { FencedError } from './engine-lease';
import type { JournalBatch } from './journal-writer';
import { Samples } from './samples';
import type { SeqCommand, SeqOutcome } from './sequencer/commands';
import type { Watermarks } from './watermarks';

/** A command waiting for its group commit, and its caller. */
export interface Queued {
  cmd: SeqCommand;
  /** When it was submitted (performance.now()): its time in the sequencer is counted from here. */
  at: number;
  /**
   * The held clock (`GroupCommit.heldClock`) when it was submitted: what it has waited since while journal writes
   * were held for the projector is the held clock now less this (the bound `heldRefuseMs` applies to that).
   */
  heldAt: number;
  /** Its answer: the outcome, and the batch it was journaled in (no object built per command for the pair). */
  done: (outcome: SeqOutcome, seq: number) => void;
  reject: (e: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most commands in one journal row. */
  maxBatch: number;
  /** With this many commands unprojected the next journal write waits for the projector (backpressure). */
  projectAhead: number;
  /**
   * With a batch answered this long ago (ms) still unprojected, the next journal write waits for
   * the projector too: the lag is bounded in time, whatever the rate (at a high rate `projectAhead`
   * commands are a short time; on a slow or busy machine a long one).
   */
  projectAheadMs: number;
  /**
   * With this many commands taken and not projected yet (queued, in the journal write in flight, or
   * applied and unprojected) the sequencer refuses new commands (the lag bound). The queue counts: the
   * backpressure holds journal writes near `projectAhead` unprojected, so with a stalled projector only
   * the queue grows, and without it in the count the bound would never be reached.
   */
  maxUnprojected: number;
  /**
   * The least time (ms) from the start of one journal write to the start of the next (0: none):
   * what arrives meanwhile joins the next row. A full row (`maxBatch`) goes at once, and so does the
   * first command after the journal has been idle that long. Every journal row costs PostgreSQL a
   * synchronous commit, and every batch the host a pass of applying, answering and pushing.
   */
  journalIntervalMs: number;
  /**
   * The lag bound in time (ms), for each command: one that has waited this long in the queue while journal
   * writes were held for the projector (the backpressure; not a write in flight, not the interval between
   * writes), over one hold or several, hears "behind" (2106) instead of being handed to the journal. And with
   * one hold lasting this long, the whole queue hears it, and so does every new command at once, until the
   * hold ends. The count bound alone lets commands queue for minutes behind a projector that is stalled, or
   * slow and ending every hold in time, to be placed at stale prices for clients that gave up.
   */
  heldRefuseMs: number;
}

/** The clock and timer the time bound of holds and the interval between journal writes run on (injectable: a test moves its clock itself). */
export interface GroupCommitTimer {
  /** Now (ms; any origin, never going back). */
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimer: GroupCommitTimer = {
  now: () => performance.now(),
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** What the group commit needs of its host. */
export interface GroupCommitHost {
  /** The lease's fencing token for the next write; undefined when the lease ran out. Absent host lease: no fencing (tests). */
  readonly lease?: { readonly current: number | undefined };
  /** A batch is durable: apply it, answer its callers (each `Queued.done`), push. Synchronous. */
  apply(seq: number, ts: number, batch: Queued[]): void;
  /** Not the sequencer any more (the lease ran out, or a newer holder fenced the write): the host steps down. */
  lost(reason: string): void;
  /** The sequencer stopped (a write of unknown fate, or a broken invariant): the host reports it and hands over. */
  failed(what: string, err: unknown): void;
}

/** For a command that never reached a journal write: nothing happened, a retry is safe. */
const busy = () => new BusinessError(ErrorCode.MARKET_BUSY);
/**
 * For a command whose batch's journal write was attempted and whose fate is unknown (it may have
 * committed, and then a restart replays it): it may or may not have happened, never "busy" (a retry
 * without the same client order id could place it twice).
 */
const unknown = () => new BusinessError(ErrorCode.ENGINE_UNKNOWN);
/** For a command refused by the lag bound (by count, or held for the projector past `heldRefuseMs`): never journaled, a retry later is safe. */
const behind = () => new BusinessError(ErrorCode.SEQUENCER_BEHIND);

/** The bound of the backpressure that holds a journal write: unprojected commands, or an unprojected batch's age. */
export type Backpressure = 'commands' | 'age';

/** What a group commit can be held up by: the write in flight, or the projector's backpressure. */
export type GroupCommitWait = 'the projector' | 'a journal write';

/**
 * Group commit (DESIGN §6): commands queue while a journal write is in flight; each write takes the
 * whole queue (up to `maxBatch`) as one row, and only once it is committed are the commands
 * applied and answered, in order. One instance per term as the sequencer's holder: once stopped
 * (`stop`) it takes nothing more, and a restart builds a new one from the journal.
 */
export class GroupCommit {
  /** Journal writes (ms) and their sizes (commands). */
  readonly writeMs = new Samples();
  readonly sizes = new Samples();
  /**
   * Each command's time from its submission to its answer being ready (ms): the queue behind the
   * write in flight (or the interval between writes), its own batch's write and the apply. The
   * rest of what a client waits is outside the sequencer (the transport, the event loop, the client).
   */
  readonly commandMs = new Samples();
  /**
   * Each time the backpressure held a journal write for the projector, how long (ms), by the bound
   * that held it first: `projectAhead` commands unprojected, or a batch `projectAheadMs` old.
   */
  readonly heldMs: Record<Backpressure, Samples> = { commands: new Samples(), age: new Samples() };
  private queue: Queued[] = [];
  /** Commands in the journal write in flight (taken from the queue, not applied yet): they count towards the lag bound. */
  private writing = 0;
  private flushing = false;
  /** What the drain waits on now, and since when (performance.now()): for a stall's report (`waiting`). */
  private waitingOn?: GroupCommitWait;
  private waitingSince = 0;
  private stopped = false;
  private retired = false;
  /** When the last journal write started (the timer's clock), and how to end a wait for the interval (`spacing`). */
  private lastWriteAt = -Infinity;
  private endSpacing?: () => void;
  /** While the projector holds the drain: the timer of its time bound (`heldRefuseMs`), and whether the hold ran past it (every command refused). */
  private holdTimer?: unknown;
  private heldTooLong = false;
  /** When the hold now on started (the timer's clock; undefined: no hold), and how long (ms) the earlier holds lasted in all. */
  private holdStart?: number;
  private heldBefore = 0;

  constructor(
    private readonly journal: { append(batch: JournalBatch, token?: number): Promise<void> },
    private readonly marks: Watermarks,
    private readonly options: GroupCommitOptions,
    private readonly host: GroupCommitHost,
    /** The last batch's time: a batch's time never goes back (the clock may). */
    private lastTs = 0,
    private readonly timer: GroupCommitTimer = realTimer,
  ) {}

  /** Journals, applies and answers `cmd` in the next group commit: its outcome (the order path's one promise per command). */
  submit(cmd: SeqCommand): Promise<SeqOutcome> {
    return new Promise((resolve, reject) => this.enqueue(cmd, resolve, reject));
  }

  /** As `submit`, with the sequence number of the batch it joined (a forwarded command's reply carries it). */
  submitWithSeq(cmd: SeqCommand): Promise<{ outcome: SeqOutcome; seq: number }> {
    return new Promise((resolve, reject) => this.enqueue(cmd, (outcome, seq) => resolve({ outcome, seq }), reject));
  }

  private enqueue(cmd: SeqCommand, done: Queued['done'], reject: Queued['reject']): void {
    if (this.stopped || this.retired) return reject(busy());
    // Bounded lag: past it the sequencer takes nothing new (and says so, before anything is journaled) until the
    // projector catches up. What is queued counts: a stalled projector gets prompt refusals, not a queue without end;
    // and so does a drain held for the projector past `heldRefuseMs`, however few commands wait.
    if (this.heldTooLong || this.marks.unprojected + this.writing + this.queue.length >= this.options.maxUnprojected) return reject(behind());
    this.queue.push({ cmd, at: performance.now(), heldAt: this.heldClock(), done, reject });
    if (!this.flushing) void this.drain();
    else if (this.queue.length >= this.options.maxBatch) this.endSpacing?.();
  }

  /**
   * What the group commit has been waiting on, for how long (ms) and how many commands queue behind
   * it; undefined while it waits on nothing. A log line for a stall says where it is (a journal write
   * PostgreSQL has not answered, or a projector that does not move).
   */
  waiting(now = performance.now()): { on: GroupCommitWait; ms: number; queued: number } | undefined {
    return this.waitingOn && { on: this.waitingOn, ms: Math.round(now - this.waitingSince), queued: this.queue.length };
  }

  private wait(on: GroupCommitWait | undefined): void {
    if (on !== this.waitingOn) this.waitingSince = performance.now();
    this.waitingOn = on;
  }

  /** The time the next batch is journaled with at the earliest: this process's clock, never before the last batch's. */
  batchClock(): number {
    return Math.max(Date.now(), this.lastTs);
  }

  /** A journal write is in flight or commands wait for one. */
  get busy(): boolean {
    return this.flushing || this.queue.length > 0;
  }

  get halted(): boolean {
    return this.stopped;
  }

  /**
   * The host stepped down or restarts: what waits hears "busy", and a write still in flight is not
   * applied here when it returns (its callers hear "unknown", 2107, unless it was fenced, so not
   * written: if it was committed, the next holder replays it, and a retry with the same client order
   * id gets its result).
   */
  retire(): void {
    this.retired = true;
    this.endSpacing?.();
    this.unhold();
    for (const p of this.queue.splice(0)) p.reject(busy());
  }

  /**
   * Takes nothing more until a restart replays the journal as it is; `batch` (its journal write was
   * attempted: the restart may replay it) hears "unknown" (2107), the queue "busy", and waits for the
   * watermark end.
   */
  stop(batch: Queued[] = []): void {
    this.stopped = true;
    this.marks.halted = true;
    this.endSpacing?.();
    this.unhold();
    for (const p of batch) p.reject(unknown());
    for (const p of this.queue.splice(0)) p.reject(busy());
  }

  /** Which bound says the projector is as far behind as the backpressure lets it be (`projectAhead`, `projectAheadMs`), if one does. */
  private behind(): Backpressure | undefined {
    if (this.marks.unprojected >= this.options.projectAhead) return 'commands';
    const oldest = this.marks.oldestUnprojectedAt();
    return oldest !== undefined && performance.now() - oldest >= this.options.projectAheadMs ? 'age' : undefined;
  }

  /**
   * The held clock: how long (ms) the drain has been held for the projector, in all holds so far. A queued
   * command ages towards `heldRefuseMs` only while it runs: waiting behind a journal write in flight (an fsync
   * stall) or out the interval between writes never makes it "behind" (2106).
   */
  private heldClock(): number {
    return this.heldBefore + (this.holdStart === undefined ? 0 : this.timer.now() - this.holdStart);
  }

  /**
   * The queued commands that have waited `heldRefuseMs` while held for the projector hear "behind" (2106): they
   * are the oldest, at the front of the queue. None of them was handed to the journal: a batch leaves the queue
   * only to be written at once (nothing awaited between), so nothing refused here can be replayed.
   */
  private refuseStale(): void {
    const oldest = this.heldClock() - this.options.heldRefuseMs;
    let n = 0;
    while (n < this.queue.length && this.queue[n].heldAt <= oldest) n++;
    for (const p of this.queue.splice(0, n)) p.reject(behind());
  }

  /**
   * The drain is held for the projector: each queued command that reaches `heldRefuseMs` held hears "behind"
   * (2106) then; once the hold itself has lasted `heldRefuseMs`, the whole queue does and so does every new
   * command until `unhold`. The hold starts only after the previous write was applied or answered (`writing`
   * is 0), so none of the queue was handed to the journal.
   */
  private hold(): void {
    this.holdStart = this.timer.now();
    this.armHold();
  }

  /** Sets the hold's timer for when the hold or the oldest queued command (which a later one never passes) reaches `heldRefuseMs`. */
  private armHold(): void {
    const hold = this.timer.now() - this.holdStart!;
    const oldest = this.queue.length ? this.heldClock() - this.queue[0].heldAt : 0;
    this.holdTimer = this.timer.set(() => this.heldOut(), Math.max(0, this.options.heldRefuseMs - Math.max(hold, oldest)));
  }

  private heldOut(): void {
    this.holdTimer = undefined;
    if (this.timer.now() - this.holdStart! >= this.options.heldRefuseMs) {
      this.heldTooLong = true;
      for (const p of this.queue.splice(0)) p.reject(behind());
    } else {
      this.refuseStale();
      this.armHold();
    }
  }

  /** The hold ended (or the group commit stopped): commands are taken again, and stop ageing. */
  private unhold(): void {
    if (this.holdTimer !== undefined) this.timer.clear(this.holdTimer);
    this.holdTimer = undefined;
    this.heldTooLong = false;
    if (this.holdStart !== undefined) this.heldBefore += this.timer.now() - this.holdStart;
    this.holdStart = undefined;
  }

  /**
   * What is left of `journalIntervalMs` since the last write started, to wait out (undefined: write
   * now, with no turn of the event loop in between); a full row, a stop or a retirement ends the wait.
   */
  private spacing(): Promise<void> | undefined {
    const left = this.lastWriteAt + this.options.journalIntervalMs - this.timer.now();
    if (left < 1 || this.queue.length >= this.options.maxBatch) return undefined;
    return new Promise<void>((resolve) => {
      const timer = this.timer.set(resolve, left);
      this.endSpacing = () => {
        this.timer.clear(timer);
        resolve();
      };
    }).then(() => (this.endSpacing = undefined));
  }

  /** Whatever queued while the previous batch was journaled (or the interval between writes ran) forms the next batch. */
  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length && !this.stopped && !this.retired) {
        // Backpressure: with this many commands not yet projected, or one answered that long ago, the next
        // journal write waits for the projector, so answers slow down before the lag grows (the hard bound refuses, above).
        const held = this.behind();
        if (held) {
          const since = performance.now();
          this.wait('the projector');
          this.hold();
          try {
            // It holds on with the queue refused and empty, so new commands keep hearing "behind" at once till the projector moves.
            while (this.behind() && !this.stopped && !this.retired) await this.marks.waitFor(this.marks.projected + 1);
          } finally {
            this.unhold();
          }
          this.heldMs[held].add(performance.now() - since);
        }
        const spacing = this.spacing();
        if (spacing) await spacing;
        if (this.stopped || this.retired || !this.queue.length) break;
        // What waited `heldRefuseMs` held, over several holds each shorter than it (a projector slow but moving), or
        // past it with the hold ended before its timer ran, hears "behind" rather than going to the journal.
        this.refuseStale();
        if (!this.queue.length) break;
        this.lastWriteAt = this.timer.now();
        const batch = this.queue.splice(0, this.options.maxBatch);
        const seq = this.marks.journaled + 1;
        const ts = this.batchClock();
        const t0 = performance.now();
        const lease = this.host.lease;
        const token = lease?.current;
        if (lease && token === undefined) {
          // The lease ran out before a renewal (a pause, or the database out of reach): not the sequencer any more.
          // Stepping down first stops the command stream, so forwarded requests stay pending for the next holder.
          this.host.lost('the lease expired before this batch was journaled');
          for (const p of batch) p.reject(busy());
          break;
        }
        let failed: { err: unknown } | undefined;
        this.wait('a journal write');
        this.writing = batch.length;
        try {
          await this.journal.append({ seq, ts, commands: batch.map((p) => p.cmd) }, token);
        } catch (err) {
          failed = { err };
        }
        // Applied (and so counted as unprojected) or answered below, with no turn of the event loop in between.
        this.writing = 0;
        this.wait(undefined);
        if (this.retired) {
          // The host stepped down or restarted meanwhile: another term's business now; only these callers hear of it:
          // "busy" if fenced (not written), else "unknown" (committed or maybe: the next holder replays it).
          const fenced = failed?.err instanceof FencedError;
          for (const p of batch) p.reject(fenced ? busy() : unknown());
          break;
        }
        if (failed?.err instanceof NotSentError) {
          // The journal's connection could not be opened: nothing was sent, so nothing happened ("busy"); the next batch tries again.
          for (const p of batch) p.reject(busy());
          continue;
        }
        if (failed?.err instanceof FencedError) {
          // A new holder took over: this batch was not written; forwarded requests stay pending for it, local callers hear "busy".
          this.host.lost(failed.err.message);
          for (const p of batch) p.reject(busy());
          break;
        }
        if (failed) {
          // Committed or not, we cannot tell: take nothing more until a restart replays the journal as it is
          // (this batch's callers hear "unknown", the queue "busy").
          this.stop(batch);
          this.host.failed('journal write failed', failed.err);
          break;
        }
        this.writeMs.add(performance.now() - t0);
        this.sizes.add(batch.length);
        this.marks.journaled = seq;
        this.lastTs = ts;
        this.host.apply(seq, ts, batch);
        const applied = performance.now();
        for (const p of batch) this.commandMs.add(applied - p.at);
      }
    } finally {
      this.wait(undefined);
      this.flushing = false;
    }
  }
}
