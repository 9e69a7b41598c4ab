import fc from 'fast-check';
import type { Side } from '@kestrel/matching-engine';
import { unitsString } from '../../../infra/money';
import { FastBalances, ownedBySequencer, parseAccountKey, ReferenceBalances, userCoin } from './balances';
import type { Leg, MarketParams, PostCmd, SeqCommand, SeqOutcome } from './commands';
import { DedupOptions, Sequencer, SequencerSnapshot } from './sequencer';

/**
 * Random command streams (funding, some of it taking a balance to 10^18 whole units or more, limit
 * and market orders, cancels, transfers out, retries, fee changes, batch boundaries) through the
 * sequencer: balances never negative, money conserved
 * per currency, frozen funds matching the live orders, replay and restore deterministic, and the
 * reference balance store indistinguishable from the fast one. Reproduce a failure with its seed:
 *   SEQ_PROP_SEED=<seed> npx jest --selectProjects backend-unit -- sequencer.property
 */
const SEED = process.env.SEQ_PROP_SEED !== undefined ? Number(process.env.SEQ_PROP_SEED) : Date.now() % 2 ** 31;
const RUNS = 80;
const T0 = 1_700_000_000_000;
// Small, so both ways of forgetting an id (age and count) happen within a stream.
const DEDUP: DedupOptions = { windowMs: 3_000, max: 20 };
/** 10^18 whole units in ledger units: a balance at or past it is held and posted like any other. */
const E18 = 10n ** 36n;

const BTC = 1;
const ETH = 2;
const USDT = 3;
const CURRENCIES = [BTC, ETH, USDT];
/** Funding and transfer amounts are multiples of these (ledger units): 0.0001 BTC, 0.001 ETH, 1 USDT. */
const AMOUNT_STEP: Record<number, bigint> = { [BTC]: 10n ** 14n, [ETH]: 10n ** 15n, [USDT]: 10n ** 18n };

interface Venue {
  readonly params: MarketParams;
  /** Ticks around which prices are drawn, and ticks per step of depth. */
  readonly mid: number;
  readonly spacing: number;
  /** Quote units per step of a market buy's budget. */
  readonly budgetStep: number;
}
const VENUES: readonly Venue[] = [
  {
    params: { id: 1, symbol: 'BTC/USDT', baseId: BTC, quoteId: USDT, tickSize: '0.01', lotSize: '0.0001', makerFee: '0.001', takerFee: '0.001' },
    mid: 6_000_000,
    spacing: 500,
    budgetStep: 20_000_000, // 20 USDT
  },
  {
    params: { id: 2, symbol: 'ETH/BTC', baseId: ETH, quoteId: BTC, tickSize: '0.00001', lotSize: '0.001', makerFee: '0.002', takerFee: '0.0015' },
    mid: 5_000,
    spacing: 3,
    budgetStep: 50_000, // 0.0005 BTC
  },
];
const FEES = ['0', '0.0005', '0.001', '0.0025', '0.01'];

/** Abstract commands; ids and amounts are resolved against the run so far, deterministically. */
type Abstract =
  | { k: 'fund'; user: number; currency: number; amount: number }
  /** Two deposits of tenths × 10^17 whole units to one account: it reaches 10^18 or more (no ceiling: the ledger's balance columns are unbounded). */
  | { k: 'whale'; user: number; currency: number; tenths: number }
  /** `deadline` as `out`'s: a forwarded place's `notAfter`. */
  | { k: 'limit'; user: number; market: number; side: Side; depth: number; qty: number; cid: number; deadline: number }
  | { k: 'sell'; user: number; market: number; qty: number; worst: number }
  | { k: 'budget'; user: number; market: number; budget: number; worst: number }
  | { k: 'buyQty'; user: number; market: number; qty: number; worst: number }
  | { k: 'cancel'; own: boolean; user: number; pick: number }
  /** `deadline`: none (-1), or a `notAfter` a second before, at or a second after the batch time the stream has reached. */
  | { k: 'out'; user: number; currency: number; amount: number; deadline: number }
  | { k: 'repost'; pick: number }
  | { k: 'batch'; advance: number }
  | { k: 'fee'; market: number; maker: number; taker: number };

const user = fc.integer({ min: 1, max: 3 });
const market = fc.integer({ min: 0, max: 1 });
const currency = fc.integer({ min: 0, max: CURRENCIES.length - 1 });
const worst = fc.integer({ min: -1, max: 6 });
// Lots: mostly small, sometimes more than anyone holds.
const qty = fc.oneof(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 6_000 }));
const abstractCommand: fc.Arbitrary<Abstract> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ k: fc.constant('fund' as const), user, currency, amount: fc.integer({ min: 1, max: 20_000 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('whale' as const), user, currency, tenths: fc.integer({ min: 5, max: 9 }) }) },
  {
    weight: 30,
    arbitrary: fc.record({
      k: fc.constant('limit' as const),
      user,
      market,
      side: fc.constantFrom<Side>('buy', 'sell'),
      // Mostly passive (depth > 0 rests away from the mid), sometimes crossing.
      depth: fc.integer({ min: -6, max: 6 }),
      qty,
      // 1–3: a client order id from a small pool, so retries happen; otherwise none.
      cid: fc.integer({ min: 0, max: 6 }),
      // Mostly none (placed in the sequencer's process); sometimes a forwarded place's deadline.
      deadline: fc.integer({ min: -4, max: 2 }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('sell' as const), user, market, qty, worst }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('budget' as const), user, market, budget: fc.integer({ min: 1, max: 1_000 }), worst }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('buyQty' as const), user, market, qty, worst: fc.integer({ min: -2, max: 6 }) }) },
  { weight: 12, arbitrary: fc.record({ k: fc.constant('cancel' as const), own: fc.boolean(), user, pick: fc.nat() }) },
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant('out' as const),
      user,
      currency,
      amount: fc.integer({ min: 1, max: 20_000 }),
      deadline: fc.integer({ min: -1, max: 2 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('repost' as const), pick: fc.nat() }) },
  // Batch times may be given going back (a clock step): the sequencer keeps its time from going back.
  { weight: 8, arbitrary: fc.record({ k: fc.constant('batch' as const), advance: fc.integer({ min: -500, max: 2_500 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constant('fee' as const), market, maker: fc.nat(FEES.length - 1), taker: fc.nat(FEES.length - 1) }),
  },
);

/** What a stream is made of once resolved: commands and batch boundaries, replayable on any sequencer. */
type Step = { readonly batch: readonly [number, number] } | { readonly cmd: SeqCommand };

function apply(seq: Sequencer, step: Step): SeqOutcome | undefined {
  if ('batch' in step) {
    seq.beginBatch(step.batch[0], step.batch[1]);
    return undefined;
  }
  return seq.apply(step.cmd);
}

function amountOf(currencyIndex: number, n: number): string {
  const c = CURRENCIES[currencyIndex];
  return unitsString(BigInt(n) * AMOUNT_STEP[c]);
}

const neg = (amount: string) => `-${amount}`;
const coinLeg = (userId: number, currencyId: number, code: number, available: string): Leg => ({
  ownerType: 'user',
  ownerId: userId,
  accountType: 'coin',
  currencyId,
  code,
  available,
});

/**
 * Resolves the abstract stream against a live sequencer (so cancels pick real order ids) and checks
 * the invariants after every step. Returns the steps, the outcomes and a snapshot taken at `cut`.
 */
function drive(stream: readonly Abstract[], venues: readonly Venue[], cut: number, check = true) {
  const seq = new Sequencer(new FastBalances(), DEDUP);
  const steps: Step[] = [];
  const outcomes: Array<SeqOutcome | undefined> = [];
  const outside = new Map<number, bigint>();
  const owners = new Map<number, number>();
  const orderIds: number[] = [];
  const posts: PostCmd[] = [];
  let batch = 1;
  let ts = T0;
  let commandNo = 0;
  let mid: string | undefined;

  const run = (step: Step) => {
    if (steps.length === cut) mid = JSON.stringify(seq.snapshot());
    steps.push(step);
    const out = apply(seq, step);
    outcomes.push(out);
    if (out) {
      for (const p of out.postings)
        for (const l of p.legs) if (!ownedBySequencer(l)) outside.set(l.currencyId, (outside.get(l.currencyId) ?? 0n) + l.available + l.frozen);
      if (out.code === 'OK' && !out.duplicate && 'cmd' in step && step.cmd.t === 'place' && out.orderId !== undefined) {
        orderIds.push(out.orderId);
        owners.set(out.orderId, step.cmd.userId);
      }
      if (check) checkInvariants(seq, out, outside, steps.length - 1);
    }
  };
  const post = (p: PostCmd) => {
    posts.push(p);
    run({ cmd: p });
  };
  /** A deposit: the user's coin account credited, the system's `external` mirror debited. */
  const fund = (userId: number, currencyIndex: number, n: number, amount = amountOf(currencyIndex, n)) => {
    const id = `fund-${++commandNo}`;
    const c = CURRENCIES[currencyIndex];
    post({
      t: 'post',
      commandId: id,
      refType: 'deposit',
      refId: id,
      actor: 'test',
      legs: [coinLeg(userId, c, 200, amount), { ownerType: 'system', ownerId: 0, accountType: 'external', currencyId: c, code: 200, available: neg(amount) }],
    });
  };

  run({ batch: [batch, ts] });
  for (const v of venues) run({ cmd: { t: 'market', market: v.params } });
  // Everyone starts with something of everything (0.5 BTC, 5 ETH, 30000 USDT) so orders meet; the stream adds and removes more.
  for (const u of [1, 2, 3]) for (const [i, n] of [5_000, 5_000, 30_000].entries()) fund(u, i, n);
  for (const a of stream) {
    const v = venues[('market' in a ? a.market : 0) % venues.length];
    const priceAt = (side: Side, depth: number) => (side === 'buy' ? v.mid - depth * v.spacing : v.mid + depth * v.spacing);
    switch (a.k) {
      case 'fund':
        fund(a.user, a.currency, a.amount);
        break;
      case 'whale':
        for (let i = 0; i < 2; i++) fund(a.user, a.currency, 0, unitsString(BigInt(a.tenths) * 10n ** 35n));
        break;
      case 'out': {
        const id = `out-${++commandNo}`;
        const c = CURRENCIES[a.currency];
        const amount = amountOf(a.currency, a.amount);
        post({
          t: 'post',
          commandId: id,
          refType: 'transfer',
          refId: id,
          actor: `user:${a.user}`,
          ...(a.deadline < 0 ? {} : { notAfter: ts + (a.deadline - 1) * 1000 }),
          legs: [
            coinLeg(a.user, c, 502, neg(amount)),
            { ownerType: 'user', ownerId: a.user, accountType: 'option', currencyId: c, code: 503, available: amount },
          ],
        });
        break;
      }
      case 'repost':
        if (posts.length) run({ cmd: posts[a.pick % posts.length] });
        break;
      case 'limit':
        run({
          cmd: {
            t: 'place',
            userId: a.user,
            marketId: v.params.id,
            side: a.side,
            type: 'limit',
            price: priceAt(a.side, a.depth),
            qty: a.qty,
            quoteBudget: 0,
            clientOrderId: a.cid >= 1 && a.cid <= 3 ? `c${a.cid}` : null,
            ...(a.deadline < 0 ? {} : { notAfter: ts + (a.deadline - 1) * 1000 }),
          },
        });
        break;
      case 'sell':
        run({
          cmd: {
            t: 'place',
            userId: a.user,
            marketId: v.params.id,
            side: 'sell',
            type: 'market',
            price: a.worst < 0 ? 0 : priceAt('buy', a.worst),
            qty: a.qty,
            quoteBudget: 0,
          },
        });
        break;
      case 'budget':
        run({
          cmd: {
            t: 'place',
            userId: a.user,
            marketId: v.params.id,
            side: 'buy',
            type: 'market',
            price: a.worst < 0 ? 0 : priceAt('sell', a.worst),
            qty: 0,
            quoteBudget: a.budget * v.budgetStep,
          },
        });
        break;
      case 'buyQty':
        run({
          cmd: { t: 'place', userId: a.user, marketId: v.params.id, side: 'buy', type: 'market', price: priceAt('sell', a.worst), qty: a.qty, quoteBudget: 0 },
        });
        break;
      case 'cancel': {
        // Mostly recent orders (still live, often), by their owner or by someone else.
        const id = orderIds.length ? orderIds[orderIds.length - 1 - (a.pick % Math.min(orderIds.length, 12))] : 999;
        run({ cmd: { t: 'cancel', userId: a.own ? (owners.get(id) ?? a.user) : a.user, orderId: id } });
        break;
      }
      case 'batch':
        ts += a.advance;
        run({ batch: [++batch, ts] });
        break;
      case 'fee':
        run({ cmd: { t: 'market', market: { ...v.params, makerFee: FEES[a.maker], takerFee: FEES[a.taker] } } });
        break;
    }
  }
  if (mid === undefined) mid = JSON.stringify(seq.snapshot());
  return { seq, steps, outcomes, mid: JSON.parse(mid) as SequencerSnapshot, cut: Math.min(cut, steps.length) };
}

/** (a) nothing negative, (b) owned total = −outside total per currency, (e) frozen = Σ live orders' frozenLeft; plus balanced postings. */
function checkInvariants(seq: Sequencer, out: SeqOutcome, outside: Map<number, bigint>, at: number): void {
  const fail = (what: string) => {
    throw new Error(`step #${at}: ${what}`);
  };
  for (const p of out.postings) {
    const sums = new Map<number, bigint>();
    for (const l of p.legs) {
      sums.set(l.currencyId, (sums.get(l.currencyId) ?? 0n) + l.available + l.frozen);
      if ((l.availableAfter ?? 0n) < 0n || (l.frozenAfter ?? 0n) < 0n) fail(`negative running balance in ${p.refType}:${p.refId}`);
    }
    for (const [c, s] of sums) if (s !== 0n) fail(`posting ${p.refType}:${p.refId} off by ${s} in currency ${c}`);
  }
  const snap = seq.snapshot();
  const owned = new Map<number, bigint>();
  const frozen = new Map<string, bigint>();
  for (const [key, a, f] of snap.balances) {
    const available = BigInt(a);
    const fz = BigInt(f);
    if (available < 0n || fz < 0n) fail(`${key} negative: ${a} / ${f}`);
    const k = parseAccountKey(key);
    owned.set(k.currencyId, (owned.get(k.currencyId) ?? 0n) + available + fz);
    frozen.set(key, fz);
  }
  for (const c of new Set([...owned.keys(), ...outside.keys()])) {
    const o = owned.get(c) ?? 0n;
    const x = outside.get(c) ?? 0n;
    if (o + x !== 0n) fail(`currency ${c}: owned ${o} but outside ${x}`);
  }
  const byOrders = new Map<string, bigint>();
  for (const o of snap.orders) {
    if (BigInt(o.frozenLeft) < 0n) fail(`order ${o.id} frozenLeft ${o.frozenLeft}`);
    const key = userCoin(o.userId, o.frozenCurrency);
    byOrders.set(key, (byOrders.get(key) ?? 0n) + BigInt(o.frozenLeft));
  }
  // No post in these streams freezes, so every frozen unit belongs to a live order.
  for (const key of new Set([...frozen.keys(), ...byOrders.keys()]))
    if ((frozen.get(key) ?? 0n) !== (byOrders.get(key) ?? 0n)) fail(`${key} frozen ${frozen.get(key) ?? 0n} but live orders hold ${byOrders.get(key) ?? 0n}`);
  if (snap.orders.length !== seq.liveOrders) fail('live order count');
}

/** Outcome equality: a cheap canonical string first, jest's diff only when they differ (readable failures, fast passes). */
const canonical = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
function expectSame(actual: SeqOutcome | undefined, expected: SeqOutcome | undefined, at: number): void {
  if (canonical(actual) !== canonical(expected)) expect({ at, outcome: actual }).toEqual({ at, outcome: expected });
}

const streamArb = fc.array(abstractCommand, { minLength: 20, maxLength: 150, size: 'max' });
const venuesArb = fc.constantFrom<readonly Venue[]>([VENUES[0]], VENUES, VENUES);
// Markets are configured in id order: see the sequencer spec for configuration out of id order.

describe(`property: sequencer on random command streams (seed ${SEED})`, () => {
  it('never lets a balance go negative, conserves each currency and keeps frozen = live orders', () => {
    fc.assert(
      // drive() checks the invariants after every step and throws at the first broken one.
      fc.property(venuesArb, streamArb, (venues, stream) => void drive(stream, venues, Number.MAX_SAFE_INTEGER)),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('replays to the same hash, and restoring a snapshot taken midway then replaying the rest does too', () => {
    fc.assert(
      fc.property(venuesArb, streamArb, fc.nat(160), (venues, stream, cutAt) => {
        const { seq, steps, outcomes, mid, cut } = drive(stream, venues, cutAt, false);
        const replay = new Sequencer(new FastBalances(), DEDUP);
        steps.forEach((s, i) => expectSame(apply(replay, s), outcomes[i], i));
        expect(replay.hash()).toBe(seq.hash());

        for (const store of [undefined, (init: ConstructorParameters<typeof ReferenceBalances>[0]) => new ReferenceBalances(init)]) {
          const restored = Sequencer.restore(mid, store, DEDUP);
          expect(restored.snapshot()).toEqual(mid);
          steps.slice(cut).forEach((s, i) => expectSame(apply(restored, s), outcomes[cut + i], cut + i));
          expect(restored.hash()).toBe(seq.hash());
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('gives identical outcomes and hashes with ReferenceBalances as with FastBalances', () => {
    fc.assert(
      fc.property(venuesArb, streamArb, (venues, stream) => {
        const { seq, steps, outcomes } = drive(stream, venues, Number.MAX_SAFE_INTEGER, false);
        const reference = new Sequencer(new ReferenceBalances(), DEDUP);
        steps.forEach((s, i) => {
          const out = apply(reference, s);
          // Codes and order states first, for a readable failure; then everything else.
          if (canonical([out?.code, out?.duplicate, out?.orders]) !== canonical([outcomes[i]?.code, outcomes[i]?.duplicate, outcomes[i]?.orders]))
            expect({ at: i, code: out?.code, duplicate: out?.duplicate, orders: out?.orders }).toEqual({
              at: i,
              code: outcomes[i]?.code,
              duplicate: outcomes[i]?.duplicate,
              orders: outcomes[i]?.orders,
            });
          expectSame(out, outcomes[i], i);
        });
        expect(reference.snapshot()).toEqual(seq.snapshot());
        expect(reference.hash()).toBe(seq.hash());
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("without postings (the host's copy) gives the same outcomes less the ledger, and the same state and hash", () => {
    fc.assert(
      fc.property(venuesArb, streamArb, (venues, stream) => {
        const { seq, steps, outcomes } = drive(stream, venues, Number.MAX_SAFE_INTEGER, false);
        const lean = new Sequencer(new FastBalances(), DEDUP);
        lean.postings = false;
        steps.forEach((s, i) => {
          const out = apply(lean, s);
          expect(out?.postings ?? []).toEqual([]);
          expectSame(out && { ...out, postings: outcomes[i]!.postings }, outcomes[i], i);
        });
        expect(lean.snapshot()).toEqual(seq.snapshot());
        expect(lean.hash()).toBe(seq.hash());
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('the streams exercise what they should (trades, refusals, duplicates, releases)', () => {
    // A guard against a generator that silently stops reaching the interesting paths.
    const seen = new Map<string, number>();
    const note = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
    fc.assert(
      fc.property(venuesArb, streamArb, (venues, stream) => {
        for (const out of drive(stream, venues, Number.MAX_SAFE_INTEGER).outcomes) {
          if (!out) continue;
          note(out.code);
          if (out.duplicate) note('duplicate');
          if (out.trades.length) note('trade');
          if (out.postings.some((p) => p.legs.some((l) => l.code === 902))) note('release');
          if (out.orders.some((o) => o.status === 'waiting')) note('resting');
          if (out.postings.some((p) => p.legs.some((l) => (l.availableAfter ?? 0n) >= E18))) note('10^18 or more');
        }
      }),
      { seed: SEED, numRuns: 20 },
    );
    for (const k of [
      'OK',
      'INSUFFICIENT_BALANCE',
      'SELLABLE_INSUFFICIENT',
      'ORDER_NOT_FOUND',
      'EXPIRED',
      'duplicate',
      'trade',
      'release',
      'resting',
      '10^18 or more',
    ])
      expect([k, (seen.get(k) ?? 0) > 0]).toEqual([k, true]);
  });
});
