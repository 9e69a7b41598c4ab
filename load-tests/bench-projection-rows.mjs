// npm run bench:projection-rows — the projector thread's JavaScript per command, without
// PostgreSQL: a bench-like stream (100 traders, limit orders around one price, 30 % cancels) in
// batches of 33 commands, 20 batches a projection. `replay`: a fresh sequencer with its postings
// applies them all, as the projection replica does with the journal. `projection rows`: each
// projection is turned into its rows (projectionRows, then the orders' and the trades' COPY text
// and changed columns). One projection at a time, replayed then made into rows, as the projector
// thread works; seven passes, each with a fresh sequencer; the median pass is each figure. Last
// two lines: `replay: <µs> µs per command (median of 7; min <µs>)`, then the same for
// `projection rows`.
//
// BENCH_BUILD=<dir> measures another build of the backend (e.g. a copy of an earlier dist/ inside backend/).
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const dist = resolve(process.env.BENCH_BUILD ?? join(root, 'backend/dist'));
const { Sequencer } = require(join(dist, 'modules/engine/sequencer/sequencer.js'));
const { projectionRows, Projector } = require(join(dist, 'modules/engine/projector.js'));
const { marketLookup } = require(join(dist, 'modules/engine/projection-replica.js'));

const PROJECTIONS = Number(process.env.BENCH_PROJECTIONS ?? 400);
const BTC = 1;
const USDT = 3;
const market = { id: 1, symbol: 'BTC/USDT', baseId: BTC, quoteId: USDT, tickSize: '0.01', lotSize: '0.0001', makerFee: '0.001', takerFee: '0.001' };

const deposit = (userId, currencyId, amount) => ({
  t: 'post',
  commandId: `deposit-${userId}-${currencyId}`,
  refType: 'deposit',
  refId: String(userId),
  actor: 'bench',
  legs: [
    { ownerType: 'user', ownerId: userId, accountType: 'coin', currencyId, code: 500, available: amount },
    { ownerType: 'system', ownerId: 0, accountType: 'external', currencyId, code: 500, available: `-${amount}` },
  ],
});
const setup = [{ t: 'market', market }];
for (let u = 1; u <= 100; u++) setup.push(deposit(u, BTC, '1000000'), deposit(u, USDT, '10000000000'));

// A fixed pseudo-random stream, recorded once (the cancels name orders the sequencer left resting):
// the same commands on every run, in batches of 33, 20 batches a projection.
let state = 12345;
const random = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const resting = [];
function command() {
  if (resting.length > 50 && random() < 0.3) {
    const [orderId, userId] = resting.splice(Math.floor(random() * resting.length), 1)[0];
    return { t: 'cancel', userId, orderId };
  }
  const side = random() < 0.5 ? 'buy' : 'sell';
  const price = 1_000_000 + Math.floor((random() - 0.5) * 400) + (side === 'buy' ? 40 : -40);
  return { t: 'place', userId: 1 + Math.floor(random() * 100), marketId: 1, side, type: 'limit', price, qty: 1 + Math.floor(random() * 20000), quoteBudget: 0 };
}
const recorder = new Sequencer();
recorder.beginBatch(1, 1.7e12);
setup.forEach((c) => recorder.apply(c));
const recorded = Array.from({ length: PROJECTIONS }, (_, p) =>
  Array.from({ length: 20 }, (_, b) => {
    recorder.beginBatch(2 + p * 20 + b, 1.7e12);
    return Array.from({ length: 33 }, () => {
      const c = command();
      const o = recorder.apply(c);
      if (c.t === 'place' && o.order?.status === 'waiting') resting.push([o.orderId, c.userId]);
      return c;
    });
  }),
);

/** A fresh sequencer that has applied the set-up, with its postings (as the projection replica's). */
function replica() {
  const seqr = new Sequencer();
  seqr.beginBatch(1, 1.7e12);
  setup.forEach((c) => seqr.apply(c));
  return seqr;
}

/** One projection's batches applied by the replica: its AppliedBatches. */
function replay(seqr, p) {
  return recorded[p].map((commands, b) => {
    const seq = 2 + p * 20 + b;
    seqr.beginBatch(seq, 1.7e12 + seq);
    return { seq, ts: 1.7e12 + seq, outcomes: commands.map((c) => seqr.apply(c)) };
  });
}

const projector = new Projector(
  undefined,
  marketLookup([{ id: 1, symbol: market.symbol, tickSize: market.tickSize, lotSize: market.lotSize, minQty: market.lotSize }]),
);
const commands = recorded.reduce((n, p) => n + p.reduce((m, b) => m + b.length, 0), 0);
// Ledger ids as the projection reserves them (each the first of eight), made once per size.
const idsOf = new Map();
function ids(n) {
  if (!idsOf.has(n))
    idsOf.set(
      n,
      Array.from({ length: n }, (_, i) => 1 + 8 * i),
    );
  return idsOf.get(n);
}

function rows(batches) {
  const r = projectionRows(batches);
  const reserved = ids(r.slots);
  const [made, changed] = projector.orderRows(r.orders, r.created, r.freezes, r.releases, reserved);
  const [trades] = projector.tradeRows(r.trades, reserved);
  return made.length + trades.length + changed.length + r.owned.size;
}

// Seven passes, each a fresh replica: every projection replayed, then its rows built, one at a
// time as the projector thread does (its outcomes are garbage once its rows are made).
const replayed = [];
const built = [];
let sink = 0;
let trades = 0;
for (let pass = 0; pass < 7; pass++) {
  const seqr = replica();
  let replayNs = 0n;
  let rowsNs = 0n;
  for (let p = 0; p < PROJECTIONS; p++) {
    const t0 = process.hrtime.bigint();
    const batches = replay(seqr, p);
    const t1 = process.hrtime.bigint();
    sink += rows(batches);
    rowsNs += process.hrtime.bigint() - t1;
    replayNs += t1 - t0;
    if (pass === 0) trades += batches.reduce((n, b) => n + b.outcomes.reduce((m, o) => m + o.trades.length, 0), 0);
  }
  replayed.push(Number(replayNs) / 1e3 / commands);
  built.push(Number(rowsNs) / 1e3 / commands);
}
replayed.sort((a, b) => a - b);
built.sort((a, b) => a - b);
console.error(`[bench] ${commands} commands in ${PROJECTIONS} projections of 20 batches; ${trades} trades; ${sink > 0 ? 'rows built' : 'no rows'}`);
console.log(`replay: ${replayed[3].toFixed(2)} µs per command (median of 7; min ${replayed[0].toFixed(2)})`);
console.log(`projection rows: ${built[3].toFixed(2)} µs per command (median of 7; min ${built[0].toFixed(2)})`);
