import type { OrderState, SeqOutcome } from './sequencer/commands';
import { pushesOf, Watermarks } from './watermarks';

/** A batch whose commands touched these users (one outcome per user list). */
const batch = (seq: number, ...users: number[][]) => ({
  seq,
  ts: 1_700_000_000_000 + seq,
  outcomes: users.map((u): SeqOutcome => ({ code: 'OK', orders: [], trades: [], postings: [], users: u, books: [] })),
});

/** Whether the promise has settled by the end of the microtasks queued now. */
async function settled(p: Promise<unknown> | undefined): Promise<boolean> {
  if (!p) return true;
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('Watermarks', () => {
  it('hands over the batches the projector reached, oldest first, and counts their commands and lags', () => {
    const m = new Watermarks();
    m.reset(0, 0);
    m.applied(batch(1, [1], [2]), 100);
    m.applied(batch(2, [1]), 110);
    m.applied(batch(3, [3]), 120);
    expect(m.unprojected).toBe(4);
    expect(m.advance(2, 150)!.map((b) => b.seq)).toEqual([1, 2]);
    expect(m.unprojected).toBe(1);
    expect(m.projected).toBe(2);
    expect(m.advance(2, 160)).toBeUndefined(); // did not move
    expect(m.advance(1, 160)).toBeUndefined(); // nor backwards
    expect(m.advance(3, 180)!.map((b) => b.seq)).toEqual([3]);
    expect(m.unprojected).toBe(0);
    expect(m.lags.take()).toEqual({ samples: 3, p50: 50, p99: 60, max: 60 });
  });

  it('keeps of a pending batch what its pushes need (the orders changed, the users touched), not its outcomes', () => {
    const m = new Watermarks();
    m.reset(0, 0);
    const order: OrderState = {
      id: 9,
      userId: 1,
      marketId: 1,
      side: 'buy',
      type: 'limit',
      price: 100,
      qty: 2,
      quoteBudget: 0,
      clientOrderId: null,
      createdTs: 0,
      frozenCurrency: 3,
      frozenLeft: 200n,
      filledQty: 0n,
      filledQuote: 0n,
      fee: 0n,
      status: 'waiting',
      updatedTs: 0,
    };
    const b = batch(1, [1], [2, 3]);
    const withOrder = { ...b, outcomes: [{ ...b.outcomes[0], orders: [order] }, b.outcomes[1]] };
    m.applied(withOrder, 100);
    // The outcomes (their trades, answers and copies) are left to die young while the projection lags.
    expect(m.advance(1, 150)).toEqual([{ seq: 1, at: 100, commands: 2, orders: [order], users: [1, 2, 3] }]);
    expect(pushesOf(withOrder)).toEqual({ orders: [order], users: [1, 2, 3] });
  });

  it('a batch the projector reported before this process applied it is not kept pending (regression: nothing covered it again, its age held every command after it)', async () => {
    const m = new Watermarks();
    m.reset(4, 4);
    // The projector read the journal's head and reported 5 before the journal write's answer came.
    expect(m.advance(5, 100)).toEqual([]);
    expect(m.applied(batch(5, [1]), 110)).toBe(false);
    expect(m.unprojected).toBe(0);
    expect(m.oldestUnprojectedAt()).toBeUndefined();
    expect(await settled(m.settledFor(1))).toBe(true);
    // The next one waits for its report as usual.
    expect(m.applied(batch(6, [1]), 120)).toBe(true);
    expect(m.unprojected).toBe(1);
    expect(await settled(m.settledFor(1))).toBe(false);
    expect(m.advance(6, 130)!.map((b) => b.seq)).toEqual([6]);
  });

  it("a user's read waits for that user's newest batch only, and hurries the projector", async () => {
    const hurried: number[] = [];
    const m = new Watermarks((seq) => hurried.push(seq));
    m.reset(0, 0);
    m.applied(batch(1, [1]), 0);
    m.applied(batch(2, [2]), 0);
    expect(m.settledFor(3)).toBeUndefined(); // nothing of theirs pending
    const one = m.settledFor(1);
    const two = m.settledFor(2);
    expect(hurried).toEqual([1, 2]);
    m.advance(1, 0);
    expect(await settled(one)).toBe(true);
    expect(await settled(two)).toBe(false);
    m.advance(2, 0);
    expect(await settled(two)).toBe(true);
    expect(m.settledFor(1)).toBeUndefined(); // projected since: no promise
  });

  it("a forwarded answer (split roles) marks the users until the watermark passes it, and moves the journal's position", async () => {
    const m = new Watermarks();
    m.reset(5, 5);
    m.answered([7], 4); // already projected: nothing to wait for
    expect(m.settledFor(7)).toBeUndefined();
    m.answered([7, 8], 9);
    m.answered([7], 8); // an earlier batch answered late: the user still waits for 9
    expect(m.journaled).toBe(9);
    const seven = m.settledFor(7);
    expect(await settled(seven)).toBe(false);
    m.advance(8, 0);
    expect(await settled(seven)).toBe(false);
    expect(m.advance(9, 0)).toEqual([]); // no batches of its own to push
    expect(await settled(seven)).toBe(true);
  });

  it('halted or dropped, nobody waits', async () => {
    const m = new Watermarks();
    m.reset(0, 0);
    m.applied(batch(1, [1]), 0);
    const waiting = m.waitFor(1);
    m.drop();
    expect(await settled(waiting)).toBe(true);
    expect(m.unprojected).toBe(0);
    m.halted = true;
    expect(await settled(m.waitFor(10))).toBe(true);
    m.reset(3, 2); // a restart clears it
    expect(m.halted).toBe(false);
    expect(await settled(m.waitFor(3))).toBe(false);
  });
});
