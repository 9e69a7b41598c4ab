import { withEnv } from '../../../test/support/env';
import { loadConfig } from '../../infra/config/config';
import { NotSentError } from '../../infra/database/own-connection';
import { ErrorCode } from '../../infra/http/error-codes';
import { FencedError } from './engine-lease';
import { GroupCommit, GroupCommitHost, GroupCommitOptions, GroupCommitTimer, Queued } from './group-commit';
import type { JournalBatch } from './journal-writer';
import type { CancelCmd, SeqOutcome } from './sequencer/commands';
import { Watermarks } from './watermarks';

const cmd = (orderId: number): CancelCmd => ({ t: 'cancel', userId: 1, orderId });
const ok = (users: number[] = []): SeqOutcome => ({ code: 'OK', orders: [], trades: [], postings: [], users, books: [] });
const flush = () => new Promise((r) => setImmediate(r));

/** A journal whose writes finish when the test says so (in order), recording each row. */
class FakeJournal {
  readonly rows: Array<{ batch: JournalBatch; token?: number }> = [];
  /** Each row's commands, as their order ids. */
  orderIds(): number[][] {
    return this.rows.map((r) => r.batch.commands.map((c) => (c as CancelCmd).orderId));
  }
  private inFlight: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  append(batch: JournalBatch, token?: number): Promise<void> {
    this.rows.push({ batch, token });
    return new Promise((resolve, reject) => this.inFlight.push({ resolve, reject }));
  }
  async commit(): Promise<void> {
    this.inFlight.shift()!.resolve();
    await flush();
  }
  async fail(err: unknown): Promise<void> {
    this.inFlight.shift()!.reject(err);
    await flush();
  }
}

/** A timer on a clock the test moves (`advance`): what is due fires then, in order, and nothing else ever does. */
class FakeTimer implements GroupCommitTimer {
  private clock = 0;
  private nextId = 1;
  private readonly due = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.clock;
  }
  set(fn: () => void, ms: number): unknown {
    this.due.set(this.nextId, { at: this.clock + ms, fn });
    return this.nextId++;
  }
  clear(handle: unknown): void {
    this.due.delete(handle as number);
  }
  /** How many timers are set and have neither fired nor been cleared. */
  get pending(): number {
    return this.due.size;
  }
  async advance(ms: number): Promise<void> {
    this.clock += ms;
    for (const [id, t] of [...this.due].sort((a, b) => a[1].at - b[1].at)) if (t.at <= this.clock && this.due.delete(id)) t.fn();
    await flush();
  }
  /** Moves the clock without firing what is due: timers running late (a busy event loop), to fire at the next `advance`. */
  late(ms: number): void {
    this.clock += ms;
  }
}

function setup(options: Partial<GroupCommitOptions> = {}, lease?: { current: number | undefined }, brokenAt?: number) {
  const journal = new FakeJournal();
  const timer = new FakeTimer();
  const marks = new Watermarks();
  const applied: Array<{ seq: number; ts: number; cmds: number[] }> = [];
  const events: string[] = [];
  const host: GroupCommitHost = {
    lease,
    apply: (seq, ts, batch: Queued[]) => {
      // A broken invariant while applying: the host stops the group commit with this batch (EngineHost.apply).
      if (seq === brokenAt) return commits.stop(batch);
      applied.push({ seq, ts, cmds: batch.map((q) => (q.cmd as CancelCmd).orderId) });
      const outcomes = batch.map(() => ok([1]));
      batch.forEach((q, i) => q.done(outcomes[i], seq));
      marks.applied({ seq, ts, outcomes }, performance.now());
    },
    lost: (reason) => events.push(`lost: ${reason}`),
    failed: (what) => events.push(`failed: ${what}`),
  };
  const commits: GroupCommit = new GroupCommit(
    journal,
    marks,
    { maxBatch: 100, projectAhead: 1_000, projectAheadMs: Infinity, maxUnprojected: 2_000, journalIntervalMs: 0, heldRefuseMs: 5_000, ...options },
    host,
    0,
    timer,
  );
  /** Each submission's fate: the batch it was answered in, or the refusal's code. */
  const fates: Array<number | string | undefined> = [];
  const submit = (id: number) => {
    const i = fates.push(undefined) - 1;
    commits.submitWithSeq(cmd(id)).then(
      (r) => (fates[i] = r.seq),
      (e: { code?: number }) => (fates[i] = `refused ${e.code}`),
    );
  };
  return { journal, timer, marks, applied, events, commits, fates, submit };
}

describe('GroupCommit', () => {
  it('journals what queued during a write as the next row, in order, and answers only after its commit', async () => {
    const { journal, applied, fates, submit, commits } = setup();
    submit(1); // starts a write at once
    submit(2);
    submit(3); // both wait for the first write
    await flush();
    expect(journal.orderIds()).toEqual([[1]]);
    expect(fates).toEqual([undefined, undefined, undefined]); // nothing answered before the commit
    await journal.commit();
    expect(fates).toEqual([1, undefined, undefined]);
    expect(journal.orderIds()).toEqual([[1], [2, 3]]);
    await journal.commit();
    expect(fates).toEqual([1, 2, 2]);
    expect(applied.map((a) => [a.seq, a.cmds])).toEqual([
      [1, [1]],
      [2, [2, 3]],
    ]);
    expect(commits.busy).toBe(false);
    expect(commits.sizes.take()).toMatchObject({ samples: 2, max: 2 });
  });

  it("counts each command's time from its submission to its answer, the wait behind the write in flight included", async () => {
    const { journal, submit, commits } = setup();
    submit(1);
    submit(2); // queued behind the first write
    await new Promise((r) => setTimeout(r, 40));
    await journal.commit();
    expect(commits.commandMs.take()).toMatchObject({ samples: 1 });
    await journal.commit();
    const times = commits.commandMs.take();
    expect(times.samples).toBe(1);
    expect(times.max).toBeGreaterThanOrEqual(35); // the second command waited out the first write
  });

  it('takes at most maxBatch commands a row', async () => {
    const { journal, submit } = setup({ maxBatch: 2 });
    submit(1);
    for (let i = 2; i <= 6; i++) submit(i);
    await journal.commit();
    await journal.commit();
    await journal.commit();
    await journal.commit();
    expect(journal.rows.map((r) => r.batch.commands.length)).toEqual([1, 2, 2, 1]);
  });

  it('starts journal writes at least journalIntervalMs apart: what arrives meanwhile joins the next row', async () => {
    const { journal, fates, submit, timer } = setup({ journalIntervalMs: 60 });
    submit(1); // the journal was idle: written at once
    await flush();
    expect(journal.orderIds()).toEqual([[1]]);
    await journal.commit();
    submit(2);
    submit(3);
    await timer.advance(20);
    expect(journal.orderIds()).toEqual([[1]]); // within the interval: they wait, though no write is in flight
    expect(fates).toEqual([1, undefined, undefined]);
    await timer.advance(39);
    expect(journal.orderIds()).toEqual([[1]]);
    await timer.advance(1); // 60 ms after the first write started
    expect(journal.orderIds()).toEqual([[1], [2, 3]]);
    await journal.commit();
    expect(fates).toEqual([1, 2, 2]);
    await timer.advance(80); // idle for longer than the interval
    submit(4);
    await flush();
    expect(journal.orderIds()).toEqual([[1], [2, 3], [4]]); // written at once
  });

  it('a full row (maxBatch) does not wait for the interval', async () => {
    const { journal, submit } = setup({ journalIntervalMs: 60_000, maxBatch: 2 });
    submit(1);
    await flush();
    await journal.commit();
    submit(2);
    submit(3);
    await flush();
    expect(journal.orderIds()).toEqual([[1], [2, 3]]);
    await journal.commit();
  });

  it('retired while it waits out the interval: the wait ends, nothing is written and the queue hears busy', async () => {
    const { journal, fates, submit, commits } = setup({ journalIntervalMs: 60_000 });
    submit(1);
    await flush();
    await journal.commit();
    submit(2); // waits for the interval
    await flush();
    commits.retire();
    await flush();
    expect(fates).toEqual([1, `refused ${ErrorCode.MARKET_BUSY}`]);
    expect(journal.rows).toHaveLength(1);
    expect(commits.busy).toBe(false);
  });

  it('ENGINE_JOURNAL_INTERVAL_MS: 4 ms by default; a value out of 0–100 stops the start', () => {
    const interval = (value: string | undefined) => withEnv('ENGINE_JOURNAL_INTERVAL_MS', value, () => loadConfig().engine.journalIntervalMs);
    expect(interval(undefined)).toBe(4);
    expect(interval('0')).toBe(0);
    for (const bad of ['-1', '101', 'soon']) expect(() => interval(bad)).toThrow('ENGINE_JOURNAL_INTERVAL_MS');
  });

  it('a batch time never goes back, whatever the clock does', async () => {
    const { journal, submit } = setup();
    const now = jest.spyOn(Date, 'now');
    try {
      now.mockReturnValue(2_000);
      submit(1);
      await journal.commit();
      now.mockReturnValue(1_000); // the clock stepped back
      submit(2);
      await journal.commit();
      expect(journal.rows.map((r) => r.batch.ts)).toEqual([2_000, 2_000]);
    } finally {
      now.mockRestore();
    }
  });

  it('past the lag bound it refuses at once (SEQUENCER_BEHIND); past projectAhead the next write waits for the projector', async () => {
    const { journal, marks, fates, commits, submit } = setup({ projectAhead: 2, maxUnprojected: 4 });
    submit(1);
    submit(2);
    await journal.commit();
    await journal.commit(); // 2 unprojected: at projectAhead
    expect(commits.heldMs.commands.take().samples).toBe(0); // no write held yet
    submit(3); // queued, its write waits
    await flush();
    expect(journal.rows).toHaveLength(2);
    submit(4); // 2 unprojected + 1 queued < 4: still taken
    marks.applied({ seq: 99, ts: 0, outcomes: [ok()] }, 0); // (a third unprojected command)
    submit(5); // 3 unprojected + 2 queued
    await flush();
    expect(fates[4]).toBe(`refused ${ErrorCode.SEQUENCER_BEHIND}`);
    marks.advance(99, 0); // the projector caught up
    await flush();
    expect(journal.rows.map((r) => r.batch.commands.length)).toEqual([1, 1, 2]);
    await journal.commit();
    expect(fates.slice(0, 4)).toEqual([1, 2, 3, 3]);
    // One write held, by the command bound (the stats' backpressure_ms).
    expect(commits.heldMs.commands.take().samples).toBe(1);
    expect(commits.heldMs.age.take().samples).toBe(0);
  });

  it('counts the commands queued and in the journal write towards the lag bound: a stalled projector gets prompt refusals, and what was taken is journaled and answered once it moves', async () => {
    const { journal, marks, fates, commits, submit } = setup({ projectAhead: 2, maxUnprojected: 10, maxBatch: 2 });
    for (let id = 1; id <= 20; id++) submit(id); // 1 goes to the journal at once, 2–10 queue: 10 taken
    await flush();
    const refused = `refused ${ErrorCode.SEQUENCER_BEHIND}`;
    // Refused before anything was journaled, with no projector move and no journal commit: nothing waits on them.
    expect(fates.slice(10)).toEqual(Array(10).fill(refused));
    expect(fates.slice(0, 10)).toEqual(Array(10).fill(undefined));
    await journal.commit(); // [1] applied, [2, 3] written
    await journal.commit(); // [2, 3] applied: 3 unprojected, past projectAhead: the next write waits for the projector
    await flush();
    expect(journal.orderIds()).toEqual([[1], [2, 3]]);
    expect(commits.waiting()).toMatchObject({ on: 'the projector', queued: 7 });
    submit(21); // 3 unprojected + 7 queued: still at the bound
    await flush();
    expect(fates[20]).toBe(refused);
    expect(fates.slice(0, 10)).toEqual([1, 2, 2, undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
    marks.advance(1, 0);
    await flush();
    expect(journal.rows).toHaveLength(2); // 2 still unprojected: at projectAhead
    // The projector moves one batch at a time: each move lets the next row of the queue go, in order.
    for (const seq of [2, 3, 4, 5]) {
      marks.advance(seq, 0);
      await flush();
      await journal.commit();
    }
    expect(journal.orderIds()).toEqual([[1], [2, 3], [4, 5], [6, 7], [8, 9], [10]]);
    expect(fates.slice(0, 10)).toEqual([1, 2, 2, 3, 3, 4, 4, 5, 5, 6]);
    expect(commits.busy).toBe(false);
    marks.advance(6, 0); // all projected: room again
    submit(22);
    await journal.commit();
    expect(fates[21]).toBe(7);
  });

  it('ENGINE_PROJECT_AHEAD: from 1 to below ENGINE_MAX_UNPROJECTED (default 4,000 and 20,000); anything else stops the start', () => {
    const engine = (ahead: string | undefined, max?: string) =>
      withEnv('ENGINE_MAX_UNPROJECTED', max, () => withEnv('ENGINE_PROJECT_AHEAD', ahead, () => loadConfig().engine));
    expect(engine(undefined)).toMatchObject({ projectAhead: 4_000, maxUnprojected: 20_000 });
    expect(engine('1', '2')).toMatchObject({ projectAhead: 1, maxUnprojected: 2 });
    for (const [ahead, max] of [
      ['0', undefined],
      ['20000', undefined],
      ['5000', '5000'],
      ['4000', '0'],
    ])
      expect(() => engine(ahead, max)).toThrow(`ENGINE_PROJECT_AHEAD must be at least 1 and below ENGINE_MAX_UNPROJECTED (${max ?? 20_000}), got ${ahead}`);
    expect(() => engine(undefined, '100001')).toThrow('ENGINE_MAX_UNPROJECTED must be at most 100000');
  });

  it('held for the projector past heldRefuseMs: the queue (none of it journaled) and every new command hear SEQUENCER_BEHIND until the hold ends; then commands are taken and journaled again', async () => {
    const { journal, timer, marks, fates, commits, submit } = setup({ projectAhead: 2, heldRefuseMs: 5_000 });
    const refused = `refused ${ErrorCode.SEQUENCER_BEHIND}`;
    submit(1);
    submit(2);
    submit(3);
    await journal.commit(); // [1] applied, [2, 3] written
    await journal.commit(); // 3 unprojected (batches 1 and 2): past projectAhead
    submit(4);
    submit(5); // held for the projector, far below the count bound
    await flush();
    expect(commits.waiting()).toMatchObject({ on: 'the projector', queued: 2 });
    await timer.advance(4_999);
    expect(fates).toEqual([1, 2, 2, undefined, undefined]); // not yet
    await timer.advance(1);
    expect(fates).toEqual([1, 2, 2, refused, refused]);
    expect(commits.waiting()).toMatchObject({ on: 'the projector', queued: 0 }); // still held: the projector has not moved
    submit(6);
    await flush();
    expect(fates[5]).toBe(refused); // at once
    marks.advance(1, 0); // the projector moved, but 2 are still unprojected: the hold lasts, and so do the refusals
    await flush();
    submit(7);
    await flush();
    expect(fates[6]).toBe(refused);
    marks.advance(2, 0); // caught up: the hold ends
    await flush();
    expect(commits.busy).toBe(false);
    submit(8);
    await flush();
    await journal.commit();
    expect(fates[7]).toBe(3);
    // Nothing refused was journaled: a restart cannot replay it.
    expect(journal.orderIds()).toEqual([[1], [2, 3], [8]]);
    expect(commits.heldMs.commands.take().samples).toBe(1);
    expect(timer.pending).toBe(0);
  });

  it('a hold shorter than heldRefuseMs refuses nothing, each hold is timed afresh, and a journal write in flight is never timed', async () => {
    const { journal, timer, marks, fates, commits, submit } = setup({ projectAhead: 1, heldRefuseMs: 5_000 });
    submit(1);
    await flush();
    expect(timer.pending).toBe(0); // a write in flight is not the backpressure
    await timer.advance(60_000);
    await journal.commit(); // 1 unprojected: at projectAhead
    submit(2);
    await flush();
    expect(commits.waiting()).toMatchObject({ on: 'the projector', queued: 1 });
    await timer.advance(4_999);
    submit(3);
    await flush();
    marks.advance(1, 0); // the hold ends in time
    await flush();
    await journal.commit();
    expect(fates).toEqual([1, 2, 2]);
    submit(4); // held again: its own 5 s
    await flush();
    await timer.advance(4_999);
    marks.advance(2, 0);
    await flush();
    await journal.commit();
    expect(fates).toEqual([1, 2, 2, 3]);
    expect(journal.orderIds()).toEqual([[1], [2, 3], [4]]);
    expect(commits.heldMs.commands.take().samples).toBe(2);
    expect(timer.pending).toBe(0);
  });

  it('a projector slow but moving (each hold under heldRefuseMs): a command held longer than heldRefuseMs in all hears SEQUENCER_BEHIND and is never journaled; those held less are journaled in order', async () => {
    // The review's case in miniature: a backlog of several batches, the projector freeing room every 3 s, 4 s the bound.
    const { journal, timer, marks, fates, commits, submit } = setup({ projectAhead: 2, maxBatch: 2, heldRefuseMs: 4_000 });
    const refused = `refused ${ErrorCode.SEQUENCER_BEHIND}`;
    for (let id = 1; id <= 9; id++) submit(id); // [1] written at once, 2–9 queue
    await journal.commit(); // [1] applied, [2, 3] written
    await journal.commit(); // 3 unprojected: held (t = 0), 4–9 queued
    expect(commits.waiting()).toMatchObject({ on: 'the projector', queued: 6 });
    await timer.advance(2_500);
    submit(10); // held 0 s so far
    await timer.advance(500);
    marks.advance(2, 0); // t = 3 s: the projector caught up, in time for this hold
    await flush();
    expect(journal.orderIds()).toEqual([[1], [2, 3], [4, 5]]); // 4 and 5 held 3 s
    await journal.commit(); // 2 unprojected: held again (t = 3 s), 6–9 held 3 s already, 10 0.5 s
    await timer.advance(999);
    submit(11);
    expect(fates.slice(5)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    await timer.advance(1); // t = 4 s: 6–9 have been held 4 s (3 + 1), though this hold has lasted 1 s
    expect(fates.slice(5)).toEqual([refused, refused, refused, refused, undefined, undefined]);
    submit(12); // still taken: this hold is young
    await timer.advance(2_000); // t = 6 s: the projector moves, in time for this hold again
    marks.advance(3, 0);
    await flush();
    await journal.commit(); // [10, 11] applied: held again, briefly
    marks.advance(4, 0);
    await flush();
    await journal.commit();
    // 10 was held 3.5 s, 11 and 12 2 s: journaled, in order; 6–9 were never handed to the journal.
    expect(journal.orderIds()).toEqual([[1], [2, 3], [4, 5], [10, 11], [12]]);
    expect(fates).toEqual([1, 2, 2, 3, 3, refused, refused, refused, refused, 4, 4, 5]);
    expect(commits.heldMs.commands.take().samples).toBe(3);
    expect(timer.pending).toBe(0);
  });

  it('a command held past heldRefuseMs hears SEQUENCER_BEHIND when its batch is taken, even if the hold ended before its timer ran', async () => {
    const { journal, timer, marks, fates, submit } = setup({ projectAhead: 2, maxBatch: 2, heldRefuseMs: 4_000 });
    const refused = `refused ${ErrorCode.SEQUENCER_BEHIND}`;
    for (let id = 1; id <= 7; id++) submit(id);
    await journal.commit();
    await journal.commit(); // held (t = 0), 4–7 queued
    await timer.advance(3_000);
    marks.advance(2, 0);
    await flush();
    await journal.commit(); // [4, 5] journaled: held again, 6 and 7 held 3 s already
    timer.late(1_500); // their timer is due, but the event loop is busy: the projector's move comes first
    submit(8);
    marks.advance(3, 0);
    await flush();
    await journal.commit();
    expect(journal.orderIds()).toEqual([[1], [2, 3], [4, 5], [8]]);
    expect(fates).toEqual([1, 2, 2, 3, 3, refused, refused, 4]);
    expect(timer.pending).toBe(0);
  });

  it('time behind a journal write in flight (however slow: an fsync stall) is not held time: nothing is refused without a hold, nor by a short hold after a slow write', async () => {
    const { journal, timer, marks, fates, submit } = setup({ projectAhead: 4, heldRefuseMs: 4_000 });
    submit(1); // in flight for a minute
    submit(2);
    submit(3);
    await flush();
    await timer.advance(60_000);
    await journal.commit(); // 1 unprojected: [2, 3] written at once
    await timer.advance(60_000);
    submit(4); // waits another minute behind [2, 3]
    await timer.advance(60_000);
    await journal.commit(); // 3 unprojected: [4] written
    submit(5);
    await timer.advance(60_000);
    await journal.commit(); // 4 unprojected: 5 held (having waited a minute behind the write)
    await timer.advance(3_999);
    marks.advance(3, 0);
    await flush();
    await journal.commit();
    expect(fates).toEqual([1, 2, 2, 3, 4]);
    expect(journal.orderIds()).toEqual([[1], [2, 3], [4], [5]]);
    expect(timer.pending).toBe(0);
  });

  it('retired while held: the hold timer is cleared, and it refuses nothing afterwards', async () => {
    const { journal, timer, fates, commits, submit } = setup({ projectAhead: 1 });
    submit(1);
    await journal.commit();
    submit(2); // held
    await flush();
    expect(timer.pending).toBe(1);
    commits.retire();
    expect(timer.pending).toBe(0);
    await timer.advance(60_000);
    expect(fates).toEqual([1, `refused ${ErrorCode.MARKET_BUSY}`]);
  });

  it('ENGINE_HELD_REFUSE_MS: 4,000 ms by default; a value out of 100–600,000 stops the start', () => {
    const held = (value: string | undefined) => withEnv('ENGINE_HELD_REFUSE_MS', value, () => loadConfig().engine.heldRefuseMs);
    expect(held(undefined)).toBe(4_000);
    expect(held('100')).toBe(100);
    expect(held('600000')).toBe(600_000);
    for (const bad of ['99', '600001', '5s']) expect(() => held(bad)).toThrow('ENGINE_HELD_REFUSE_MS');
  });

  it('with a batch answered projectAheadMs ago still unprojected, the next write waits for the projector', async () => {
    const { journal, marks, commits, submit } = setup({ projectAheadMs: 100 });
    submit(1);
    await journal.commit(); // batch 1 answered now, not projected
    submit(2);
    await flush();
    expect(journal.rows).toHaveLength(2); // young: written at once
    await journal.commit();
    const now = jest.spyOn(performance, 'now').mockReturnValue(performance.now() + 150);
    try {
      submit(3);
      await flush();
      expect(journal.rows).toHaveLength(2); // batch 1 is 150 ms old: the write waits, with 2 commands far below projectAhead
      marks.advance(1, 0);
      await flush();
      expect(journal.rows).toHaveLength(2); // batch 2 is as old
      marks.advance(2, 0);
      await flush();
      expect(journal.rows).toHaveLength(3);
      // One write held, by the age bound, for as long as the mocked clock says (it stood still).
      expect(commits.heldMs.age.take()).toEqual({ samples: 1, p50: 0, p99: 0, max: 0 });
      expect(commits.heldMs.commands.take().samples).toBe(0);
    } finally {
      now.mockRestore();
    }
  });

  it('says what it waits on (a journal write, the projector), since when and how many commands queue behind it', async () => {
    const { journal, marks, commits, submit } = setup({ projectAhead: 2 });
    expect(commits.waiting()).toBeUndefined();
    submit(1);
    submit(2);
    await flush();
    const write = commits.waiting(performance.now() + 1_000)!;
    expect(write).toMatchObject({ on: 'a journal write', queued: 1 });
    expect(write.ms).toBeGreaterThanOrEqual(1_000);
    await journal.commit();
    expect(commits.waiting()).toMatchObject({ on: 'a journal write', queued: 0 });
    await journal.commit(); // 2 unprojected: at projectAhead
    expect(commits.waiting()).toBeUndefined();
    submit(3);
    await flush();
    expect(commits.waiting()).toMatchObject({ on: 'the projector', queued: 1 });
    marks.advance(2, 0); // the projector caught up: the write goes
    await flush();
    expect(commits.waiting()).toMatchObject({ on: 'a journal write', queued: 0 });
    await journal.commit();
    expect(commits.waiting()).toBeUndefined();
  });

  it('a fenced write (a newer lease holder) is not applied: the host steps down and its callers hear busy', async () => {
    const lease = { current: 7 as number | undefined };
    const { journal, applied, events, fates, submit } = setup({}, lease);
    submit(1);
    await journal.commit();
    submit(2);
    await flush();
    expect(journal.rows.map((r) => r.token)).toEqual([7, 7]);
    await journal.fail(new FencedError(7));
    expect(applied.map((a) => a.seq)).toEqual([1]);
    expect(events).toEqual(['lost: journal write fenced: lease token 7 is no longer current']);
    expect(fates).toEqual([1, `refused ${ErrorCode.MARKET_BUSY}`]);
  });

  it('with the lease run out it writes nothing: the host steps down', async () => {
    const { journal, events, fates, submit } = setup({}, { current: undefined });
    submit(1);
    await flush();
    expect(journal.rows).toHaveLength(0);
    expect(events).toEqual(['lost: the lease expired before this batch was journaled']);
    expect(fates).toEqual([`refused ${ErrorCode.MARKET_BUSY}`]);
  });

  it('a write never sent (the journal could not connect) changes nothing: its callers hear busy, the next batch is written', async () => {
    const { journal, applied, events, fates, submit, commits } = setup();
    submit(1);
    submit(2);
    await journal.fail(new NotSentError('kestrel-journal: could not connect (ECONNREFUSED)'));
    // The queue's command is the next row, with the sequence number the unsent batch did not use.
    expect(journal.rows.map((r) => r.batch.seq)).toEqual([1, 1]);
    await journal.commit();
    expect(fates).toEqual([`refused ${ErrorCode.MARKET_BUSY}`, 1]);
    expect(applied.map((a) => [a.seq, a.cmds])).toEqual([[1, [2]]]);
    expect(events).toEqual([]);
    expect(commits.halted).toBe(false);
  });

  it('a write of unknown fate stops it until a restart: that batch hears unknown (2107), the queue and every new command busy', async () => {
    const { journal, marks, applied, events, fates, submit, commits } = setup();
    submit(1);
    submit(2);
    await journal.fail(new Error('connection reset'));
    expect(events).toEqual(['failed: journal write failed']);
    expect(applied).toEqual([]);
    expect(commits.halted).toBe(true);
    expect(marks.halted).toBe(true);
    submit(3);
    await flush();
    expect(fates).toEqual([`refused ${ErrorCode.ENGINE_UNKNOWN}`, `refused ${ErrorCode.MARKET_BUSY}`, `refused ${ErrorCode.MARKET_BUSY}`]);
    expect(journal.rows).toHaveLength(1);
  });

  it('a journal write that commits and then throws: its callers hear unknown (2107, a restart replays it), not busy; the queue hears busy', async () => {
    const marks = new Watermarks();
    const committed: JournalBatch[] = [];
    const events: string[] = [];
    // The row is durable, then the answer is lost (a connection reset after COMMIT).
    const journal = {
      append: async (batch: JournalBatch): Promise<void> => {
        await flush();
        committed.push(batch);
        throw new Error('connection reset after commit');
      },
    };
    const host: GroupCommitHost = { apply: () => events.push('applied'), lost: () => events.push('lost'), failed: (what) => events.push(`failed: ${what}`) };
    const commits = new GroupCommit(
      journal,
      marks,
      { maxBatch: 100, projectAhead: 1_000, projectAheadMs: Infinity, maxUnprojected: 2_000, journalIntervalMs: 0, heldRefuseMs: 5_000 },
      host,
    );
    const codes = await Promise.all(
      [1, 2, 3].map((id) =>
        commits.submit(cmd(id)).then(
          () => 'answered',
          (e: { code?: number }) => e.code,
        ),
      ),
    );
    expect(committed.map((b) => b.commands.map((c) => (c as CancelCmd).orderId))).toEqual([[1]]); // 2 and 3 queued behind it
    expect(codes).toEqual([ErrorCode.ENGINE_UNKNOWN, ErrorCode.MARKET_BUSY, ErrorCode.MARKET_BUSY]);
    expect(events).toEqual(['failed: journal write failed']);
  });

  it('stopped by its host while applying (a broken invariant): that journaled batch hears unknown, the queue and every later command busy', async () => {
    const { journal, marks, applied, events, fates, submit, commits } = setup({}, undefined, 2);
    submit(1);
    await journal.commit();
    submit(2);
    submit(3); // queued behind 2's write
    await journal.commit();
    expect(applied.map((a) => a.seq)).toEqual([1]);
    expect(commits.halted).toBe(true);
    expect(marks.halted).toBe(true);
    expect(events).toEqual([]); // the host reports it itself
    submit(4);
    await flush();
    expect(fates).toEqual([1, `refused ${ErrorCode.ENGINE_UNKNOWN}`, `refused ${ErrorCode.MARKET_BUSY}`, `refused ${ErrorCode.MARKET_BUSY}`]);
    expect(journal.rows).toHaveLength(2);
  });

  it('retired (the host stepped down): the queue hears busy, and a write in flight is neither applied nor reported when it returns (its callers hear unknown unless fenced)', async () => {
    for (const outcome of ['committed', 'fenced', 'failed'] as const) {
      const { journal, marks, applied, events, fates, submit, commits } = setup({}, { current: 3 });
      submit(1); // in flight
      submit(2); // queued
      await flush();
      commits.retire();
      if (outcome === 'committed') await journal.commit();
      else await journal.fail(outcome === 'fenced' ? new FencedError(3) : new Error('connection reset'));
      expect(applied).toEqual([]);
      expect(events).toEqual([]); // a new term (this process's too) is not stepped down or stopped by the old one
      expect(marks.journaled).toBe(0);
      submit(3);
      await flush();
      // Committed or of unknown fate, the batch may be replayed by the next holder: "unknown"; fenced, it was not written: "busy".
      expect(fates).toEqual([
        outcome === 'fenced' ? `refused ${ErrorCode.MARKET_BUSY}` : `refused ${ErrorCode.ENGINE_UNKNOWN}`,
        `refused ${ErrorCode.MARKET_BUSY}`,
        `refused ${ErrorCode.MARKET_BUSY}`,
      ]);
      expect(journal.rows).toHaveLength(1);
      expect(commits.busy).toBe(false);
    }
  });
});
