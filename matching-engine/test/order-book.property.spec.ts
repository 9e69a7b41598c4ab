import fc from 'fast-check';
import { EventCollector, FastBook, ReferenceBook, canonicalEvent, hashEvents } from '../src';
import type { Command, EngineEvent, OrderBook, Side, StpMode, TimeInForce } from '../src';

/**
 * Random command streams through both books: identical events, an uncrossed book and
 * conserved quantities after every command. Reproduce a failure with the printed seed:
 *   ENGINE_PROP_SEED=<seed> npx jest --selectProjects matching-engine -t property
 */
const SEED = process.env.ENGINE_PROP_SEED !== undefined ? Number(process.env.ENGINE_PROP_SEED) : Date.now() % 2 ** 31;
const RUNS = 200;
const COMMANDS_PER_RUN = 500;
let commandsChecked = 0;

/** Abstract commands: ids are picked from earlier ones at resolve time so cancels/amends hit real orders. */
type Abstract =
  | { k: 'limit'; side: Side; depth: number; qty: number; tif: TimeInForce; postOnly: boolean; stp: StpMode; owner: number; reuse: number }
  | { k: 'market'; side: Side; qty: number; worst: number; tif: TimeInForce; stp: StpMode; owner: number }
  | { k: 'quote'; budget: number; worst: number; stp: StpMode; owner: number }
  | { k: 'cancel'; pick: number }
  | { k: 'amend'; pick: number; change: number; depth: number; qty: number }
  | { k: 'junk'; which: number };

const side = fc.constantFrom<Side>('buy', 'sell');
const stp = fc.constantFrom<StpMode>('none', 'none', 'cancel-taker', 'cancel-maker', 'cancel-both');
const owner = fc.integer({ min: 1, max: 4 });

const abstractCommand: fc.Arbitrary<Abstract> = fc.oneof(
  {
    weight: 40,
    arbitrary: fc.record({
      k: fc.constant('limit' as const),
      side,
      // Mostly passive (depth > 0 rests away from the mid), sometimes aggressive.
      depth: fc.integer({ min: -3, max: 10 }),
      qty: fc.integer({ min: 1, max: 12 }),
      tif: fc.constantFrom<TimeInForce>('GTC', 'GTC', 'GTC', 'GTC', 'IOC', 'FOK'),
      postOnly: fc.boolean(),
      stp,
      owner,
      reuse: fc.integer({ min: 0, max: 30 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant('market' as const),
      side,
      qty: fc.integer({ min: 1, max: 30 }),
      worst: fc.integer({ min: -1, max: 6 }),
      tif: fc.constantFrom<TimeInForce>('IOC', 'IOC', 'FOK'),
      stp,
      owner,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant('quote' as const),
      budget: fc.integer({ min: 1, max: 3_000 }),
      worst: fc.integer({ min: -1, max: 6 }),
      stp,
      owner,
    }),
  },
  { weight: 12, arbitrary: fc.record({ k: fc.constant('cancel' as const), pick: fc.nat() }) },
  {
    weight: 25,
    arbitrary: fc.record({
      k: fc.constant('amend' as const),
      pick: fc.nat(),
      // 0: price only, 1: qty only, 2: both, 3: neither (invalid).
      change: fc.constantFrom(0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 3),
      depth: fc.integer({ min: -3, max: 10 }),
      qty: fc.integer({ min: 1, max: 15 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('junk' as const), which: fc.integer({ min: 0, max: 5 }) }) },
);

/**
 * Where prices sit: usually a narrow band around 100 (dense levels, lots of crossing), sometimes
 * spread out (every level in its own 32-tick chunk of the fast book's ladder) or huge.
 */
interface PriceGrid {
  mid: number;
  spacing: number;
}
const grid: fc.Arbitrary<PriceGrid> = fc.constantFrom<PriceGrid>(
  { mid: 100, spacing: 1 },
  { mid: 100, spacing: 1 },
  { mid: 100, spacing: 1 },
  { mid: 1_000, spacing: 7 },
  { mid: 100_000, spacing: 1_000 },
  { mid: 2 ** 50, spacing: 33 },
);

/** Turns abstract commands into concrete ones; deterministic, so both books see the same stream. */
function resolve(stream: Abstract[], { mid: MID, spacing }: PriceGrid = { mid: 100, spacing: 1 }): Command[] {
  // Only GTC limit ids can be live later, so only those are candidates for cancel/amend.
  const ids: number[] = [];
  const sides = new Map<number, Side>();
  let nextId = 1;
  const pickId = (pick: number): number => (ids.length === 0 ? 999_999 : ids[ids.length - 1 - (pick % Math.min(ids.length, 16))]);
  // Passive prices: buys below the mid, sells above; depth <= 0 reaches across.
  const priceAt = (s: Side, depth: number): number => (s === 'buy' ? MID - depth * spacing : MID + depth * spacing);
  return stream.map((a, i): Command => {
    const ts = 10_000 + i;
    switch (a.k) {
      case 'limit': {
        // Now and then reuse a recent id: a duplicate if it is live, a legal reuse if it is dead.
        const id = a.reuse === 0 && ids.length > 0 ? pickId(i) : nextId++;
        if (a.tif === 'GTC') {
          ids.push(id);
          sides.set(id, a.side);
        }
        const price = priceAt(a.side, a.depth);
        return {
          type: 'place',
          id,
          owner: a.owner,
          side: a.side,
          kind: 'limit',
          price,
          qty: a.qty,
          tif: a.tif,
          postOnly: a.postOnly && a.tif === 'GTC',
          stp: a.stp,
          ts,
        };
      }
      case 'market': {
        const id = nextId++;
        const worstPrice = a.worst < 0 ? undefined : priceAt(a.side === 'buy' ? 'sell' : 'buy', a.worst);
        return { type: 'place', id, owner: a.owner, side: a.side, kind: 'market', qty: a.qty, worstPrice, tif: a.tif, stp: a.stp, ts };
      }
      case 'quote': {
        const id = nextId++;
        const worstPrice = a.worst < 0 ? undefined : priceAt('sell', a.worst);
        // Budget in units of the mid price so it buys a handful of lots on any grid.
        const quoteBudget = Math.min(Number.MAX_SAFE_INTEGER, Math.floor(a.budget * (MID / 100)));
        return { type: 'place', id, owner: a.owner, side: 'buy', kind: 'market', quoteBudget, worstPrice, tif: 'IOC', stp: a.stp, ts };
      }
      case 'cancel':
        return { type: 'cancel', id: pickId(a.pick), ts };
      case 'amend': {
        const id = pickId(a.pick);
        const price = priceAt(sides.get(id) ?? 'buy', a.depth);
        return {
          type: 'amend',
          id,
          price: a.change === 0 || a.change === 2 ? price : undefined,
          qty: a.change === 1 || a.change === 2 ? a.qty : undefined,
          ts,
        };
      }
      case 'junk': {
        const bad: Command[] = [
          { type: 'place', id: nextId++, owner: 1, side: 'buy', kind: 'limit', price: MID, qty: 0, tif: 'GTC', stp: 'none', ts },
          { type: 'place', id: nextId++, owner: 1, side: 'sell', kind: 'limit', price: -3, qty: 1, tif: 'GTC', stp: 'none', ts },
          { type: 'place', id: nextId++, owner: 1, side: 'sell', kind: 'market', qty: 1, tif: 'GTC', stp: 'none', ts },
          { type: 'place', id: nextId++, owner: 1, side: 'buy', kind: 'limit', price: MID, qty: 1, tif: 'IOC', postOnly: true, stp: 'none', ts },
          { type: 'amend', id: pickId(i), ts },
          { type: 'cancel', id: 0, ts },
        ];
        return bad[a.which];
      }
    }
  });
}

/** Per-order bookkeeping rebuilt from events alone. */
class Ledger {
  submitted = new Map<number, number>();
  filled = new Map<number, number>();
  cancelled = new Map<number, number>();
  quote = new Map<number, { budget: number; spent: number }>();
  totalSubmitted = 0;
  totalFilled = 0;
  totalCancelled = 0;

  private add(m: Map<number, number>, id: number, q: number): void {
    m.set(id, (m.get(id) ?? 0) + q);
  }

  apply(e: EngineEvent): number[] {
    switch (e.type) {
      case 'accepted':
        // A reused id belongs to a new order: its history starts over.
        this.submitted.set(e.id, e.qty);
        this.filled.set(e.id, 0);
        this.cancelled.set(e.id, 0);
        this.totalSubmitted += e.qty;
        if (e.quoteBudget > 0) this.quote.set(e.id, { budget: e.quoteBudget, spent: 0 });
        else this.quote.delete(e.id);
        return [e.id];
      case 'amended': {
        const delta = e.qty - e.oldQty;
        if (delta > 0) {
          this.add(this.submitted, e.id, delta);
          this.totalSubmitted += delta;
        } else {
          this.add(this.cancelled, e.id, -delta);
          this.totalCancelled -= delta;
        }
        return [e.id];
      }
      case 'trade': {
        this.add(this.filled, e.makerId, e.qty);
        const q = this.quote.get(e.takerId);
        if (q !== undefined) {
          q.spent += e.qty * e.price;
          // A quote order has no lots "submitted": its lots appear as it buys them.
          this.add(this.submitted, e.takerId, e.qty);
          this.totalSubmitted += e.qty;
        }
        this.add(this.filled, e.takerId, e.qty);
        this.totalFilled += 2 * e.qty;
        return [e.makerId, e.takerId];
      }
      case 'cancelled':
        this.add(this.cancelled, e.id, e.qty);
        this.totalCancelled += e.qty;
        return [e.id];
      case 'done': {
        const q = this.quote.get(e.id);
        if (q !== undefined && q.spent + e.quoteLeft !== q.budget)
          throw new Error(`quote order ${e.id}: spent ${q.spent} + left ${e.quoteLeft} != ${q.budget}`);
        if (q !== undefined && q.spent > q.budget) throw new Error(`quote order ${e.id} overspent`);
        return [e.id];
      }
      case 'rejected':
        return [];
    }
  }
}

function checkBook(book: OrderBook, ledger: Ledger, touched: number[], where: string): void {
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (bid !== undefined && ask !== undefined && bid >= ask) throw new Error(`${where}: crossed book ${bid} >= ${ask}`);
  for (const id of touched) {
    const o = book.order(id);
    const open = (ledger.submitted.get(id) ?? 0) - (ledger.filled.get(id) ?? 0) - (ledger.cancelled.get(id) ?? 0);
    if ((o?.qty ?? 0) !== open) throw new Error(`${where}: order ${id} open ${o?.qty ?? 0} != submitted - filled - cancelled = ${open}`);
    if (o !== undefined && o.filled !== ledger.filled.get(id)) throw new Error(`${where}: order ${id} filled ${o.filled} != ${ledger.filled.get(id)}`);
  }
  const depth = book.depth(Number.MAX_SAFE_INTEGER);
  let resting = 0;
  for (const l of depth.bids) resting += l.qty;
  for (const l of depth.asks) resting += l.qty;
  // Per order submitted = filled + cancelled + open; summed over all orders (a trade fills two).
  const accounted = resting + ledger.totalFilled + ledger.totalCancelled;
  if (ledger.totalSubmitted !== accounted) throw new Error(`${where}: submitted ${ledger.totalSubmitted} != resting + filled + cancelled ${accounted}`);
}

function sameEvents(a: EngineEvent[], b: EngineEvent[], cmd: Command, i: number): void {
  const sa = a.map(canonicalEvent).join('');
  const sb = b.map(canonicalEvent).join('');
  if (sa !== sb) throw new Error(`command #${i} ${JSON.stringify(cmd)}\nreference:\n${sa}fast:\n${sb}`);
}

describe(`property: reference and fast books agree (seed ${SEED})`, () => {
  it(`gives identical events, an uncrossed book and conserved quantities (${RUNS} x ${COMMANDS_PER_RUN} commands)`, () => {
    fc.assert(
      fc.property(grid, fc.array(abstractCommand, { minLength: COMMANDS_PER_RUN, maxLength: COMMANDS_PER_RUN }), (prices, stream) => {
        const cmds = resolve(stream, prices);
        const refSink = new EventCollector();
        const fastSink = new EventCollector();
        const ref = new ReferenceBook(refSink);
        const fast = new FastBook(fastSink);
        const ledger = new Ledger();
        const refAll: EngineEvent[] = [];
        const fastAll: EngineEvent[] = [];
        for (let i = 0; i < cmds.length; i++) {
          const rc = ref.process(cmds[i]);
          const fc2 = fast.process(cmds[i]);
          if (rc !== fc2) throw new Error(`command #${i}: result ${rc} vs ${fc2}`);
          const re = refSink.drain();
          const fe = fastSink.drain();
          sameEvents(re, fe, cmds[i], i);
          const touched: number[] = [];
          for (const e of re) touched.push(...ledger.apply(e));
          checkBook(ref, ledger, touched, `reference #${i}`);
          checkBook(fast, ledger, touched, `fast #${i}`);
          if (ref.orderCount !== fast.orderCount) throw new Error(`command #${i}: order count ${ref.orderCount} vs ${fast.orderCount}`);
          refAll.push(...re);
          fastAll.push(...fe);
          commandsChecked++;
        }
        expect(fast.snapshot()).toEqual(ref.snapshot());
        expect(hashEvents(fastAll)).toBe(hashEvents(refAll));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: false },
    );
  });

  it('snapshot mid-stream, restore into either book, and the rest of the stream gives the same events', () => {
    fc.assert(
      fc.property(grid, fc.array(abstractCommand, { minLength: 200, maxLength: 200 }), fc.integer({ min: 0, max: 200 }), (prices, stream, cut) => {
        const cmds = resolve(stream, prices);
        const sink = new EventCollector();
        const original = new FastBook(sink);
        for (const c of cmds.slice(0, cut)) original.process(c);
        const snap = JSON.parse(JSON.stringify(original.snapshot()));
        sink.drain();
        const copies = [new FastBook(new EventCollector()), new ReferenceBook(new EventCollector())];
        for (const c of copies) c.restore(snap);
        for (const c of cmds.slice(cut)) {
          original.process(c);
          for (const copy of copies) copy.process(c);
        }
        const expected = hashEvents(sink.drain());
        for (const copy of copies) {
          expect(hashEvents((copy.sink as EventCollector).drain())).toBe(expected);
          expect(copy.snapshot()).toEqual(original.snapshot());
        }
        commandsChecked += cmds.length;
      }),
      { seed: SEED, numRuns: 50 },
    );
  });

  afterAll(() => {
    // The issue asks for at least 100,000 commands over the run.
    expect(commandsChecked).toBeGreaterThanOrEqual(100_000);
  });
});
