import type { AppliedBatch } from './projector';
import { Samples } from './samples';
import type { OrderState } from './sequencer/commands';

/**
 * An applied batch the projector has not reported yet: when it was answered (performance.now()),
 * how many commands it held, and what its pushes need (the orders its commands changed, the users
 * whose balances or orders changed). Not its outcomes: their trades, answers and the rest would
 * outlive a scavenge or two while the projection lags (~0.1–0.2 s) and be promoted, only to die in
 * the old generation (docs/performance.md, seventy-sixth sitting).
 */
export interface Unprojected extends BatchPushes {
  seq: number;
  at: number;
  commands: number;
}

/** What a batch's pushes need: the orders its commands changed, and the users they touched. */
export interface BatchPushes {
  orders: OrderState[];
  users: number[];
}

/** What one applied batch's pushes need, taken from its outcomes. */
export function pushesOf(batch: AppliedBatch): BatchPushes {
  const orders: OrderState[] = [];
  const users: number[] = [];
  for (const o of batch.outcomes) {
    for (const ord of o.orders) orders.push(ord);
    for (const u of o.users) users.push(u);
  }
  return { orders, users };
}

/**
 * The pipeline's positions as this process sees them: the last batch journaled and applied, the
 * projector's watermark, the batches in between (their pushes go out when the projector reports
 * them; their commands count towards the lag bound and the backpressure), each user's newest
 * batch (a read that must see the user's own writes waits for it, `settledFor`) and the reads
 * waiting. No I/O: the host tells it what was applied and where the projector is.
 */
export class Watermarks {
  journaled = 0;
  projected = 0;
  /** Commands applied and answered but not projected yet. */
  unprojected = 0;
  /** Waits end at once (the sequencer stopped: nothing more will be projected by this process until a restart). */
  halted = false;
  /** Answer → projection commit, ms. */
  readonly lags = new Samples();
  private pending: Unprojected[] = [];
  private readonly userSeq = new Map<number, number>();
  private waiters: Array<{ seq: number; resolve: () => void }> = [];

  /** `hurry(seq)`: a read waits for the watermark to reach `seq` (the projector stops lingering). */
  constructor(private readonly hurry: (seq: number) => void = () => undefined) {}

  /** A restart from the journal: applied up to `journaled`, projected up to `watermark`, nothing in between answered yet. */
  reset(journaled: number, watermark: number): void {
    this.journaled = journaled;
    this.projected = watermark;
    this.pending = [];
    this.unprojected = 0;
    this.halted = false;
    this.userSeq.clear();
  }

  /**
   * This process applied and answered a batch (it holds the sequencer). False when the projector has
   * reported it already (it reads the journal's head too, so its report can come before the journal
   * write's answer does): nothing is pending for it, and its pushes are the caller's to send now
   * (kept pending, no report would ever cover it: the lag bound would hold every command after it).
   */
  applied(batch: AppliedBatch, at: number): boolean {
    if (batch.seq <= this.projected) return false;
    const { orders, users } = pushesOf(batch);
    for (const u of users) this.userSeq.set(u, batch.seq);
    this.pending.push({ seq: batch.seq, at, commands: batch.outcomes.length, orders, users });
    this.unprojected += batch.outcomes.length;
    return true;
  }

  /** The sequencer's process answered a forwarded command of these users at batch `seq` (split roles), or applied an outbox command of theirs there. */
  answered(users: readonly number[], seq: number): void {
    if (seq > this.journaled) this.journaled = seq;
    if (seq > this.projected) for (const u of users) this.userSeq.set(u, Math.max(seq, this.userSeq.get(u) ?? 0));
  }

  /**
   * The projector's watermark moved to `seq` (at `now`): returns the batches it now covers, oldest
   * first (their pushes go out), and lets the reads waiting for it go on. Undefined when it did not move.
   */
  advance(seq: number, now: number): Unprojected[] | undefined {
    if (seq <= this.projected) return undefined;
    this.projected = seq;
    let n = 0;
    while (n < this.pending.length && this.pending[n].seq <= seq) n++;
    const done = this.pending.splice(0, n);
    for (const b of done) {
      this.unprojected -= b.commands;
      this.lags.add(now - b.at);
    }
    const ready = this.waiters.filter((w) => w.seq <= seq);
    this.waiters = this.waiters.filter((w) => w.seq > seq);
    for (const w of ready) w.resolve();
    if (this.userSeq.size > 50_000) for (const [u, s] of this.userSeq) if (s <= seq) this.userSeq.delete(u);
    return done;
  }

  /** Resolves once everything journaled for this user is projected; undefined when nothing is pending (no promise to wait on). */
  settledFor(userId: number): Promise<void> | undefined {
    const seq = this.userSeq.get(userId);
    if (seq === undefined) return undefined;
    if (seq <= this.projected) {
      this.userSeq.delete(userId);
      return undefined;
    }
    return this.waitFor(seq);
  }

  /** When the oldest batch not projected yet was answered (performance.now()); undefined when none is. */
  oldestUnprojectedAt(): number | undefined {
    return this.pending[0]?.at;
  }

  /** Resolves once the watermark reaches `seq` (at once when halted). */
  waitFor(seq: number): Promise<void> {
    if (seq <= this.projected || this.halted) return Promise.resolve();
    this.hurry(seq);
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /** The batches in between are no longer this process's to push (it stepped down); every wait ends. */
  drop(): void {
    this.pending = [];
    this.unprojected = 0;
    this.releaseAll();
  }

  /** Every wait ends now (the projection stopped, or this process stepped down). */
  releaseAll(): void {
    for (const w of this.waiters.splice(0)) w.resolve();
  }
}
