// npm run bench:projection-rows — the projector thread's JavaScript for one projection's rows, per
// command, without PostgreSQL: a sequencer with its postings (as the projection replica runs it)
// applies a bench-like stream (100 traders, limit orders around one price, 30 % cancels) in
// batches of 33 commands; each projection of 20 batches is turned into its rows (projectionRows,
// then the orders' and the trades' COPY text and changed columns). Seven passes over the same
// projections; the median pass is the figure. Last line:
// `projection rows: <µs> µs per command (median of 7; min <µs>)`.
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

const seqr = new Sequencer();
let batch = 0;
seqr.beginBatch(++batch, 1.7e12);
seqr.apply({ t: 'market', market });
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
for (let u = 1; u <= 100; u++) {
  seqr.apply(deposit(u, BTC, '1000000'));
  seqr.apply(deposit(u, USDT, '10000000000'));
}

// A fixed pseudo-random stream: the same commands on every run.
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
function projection() {
  const batches = [];
  for (let b = 0; b < 20; b++) {
    seqr.beginBatch(++batch, 1.7e12 + batch);
    const outcomes = [];
    for (let i = 0; i < 33; i++) {
      const c = command();
      const o = seqr.apply(c);
      if (c.t === 'place' && o.order?.status === 'waiting') resting.push([o.orderId, c.userId]);
      outcomes.push(o);
    }
    batches.push({ seq: batch, ts: 1.7e12 + batch, outcomes });
  }
  return batches;
}

const projector = new Projector(
  undefined,
  marketLookup([{ id: 1, symbol: market.symbol, tickSize: market.tickSize, lotSize: market.lotSize, minQty: market.lotSize }]),
);
const projections = Array.from({ length: PROJECTIONS }, projection);
const commands = projections.reduce((n, p) => n + p.reduce((m, b) => m + b.outcomes.length, 0), 0);
// Ledger ids as the projection reserves them (each the first of eight), made once per size.
const idsOf = new Map();
const ids = (n) =>
  idsOf.get(n) ??
  idsOf
    .set(
      n,
      Array.from({ length: n }, (_, i) => 1 + 8 * i),
    )
    .get(n);

function rows(batches) {
  const r = projectionRows(batches);
  const reserved = ids(r.slots);
  const [made, changed] = projector.orderRows(r.orders, r.created, r.freezes, r.releases, reserved);
  const [trades] = projector.tradeRows(r.trades, reserved);
  return made.length + trades.length + changed.length + r.owned.size;
}

const passes = [];
let sink = 0;
for (let pass = 0; pass < 7; pass++) {
  const t0 = process.hrtime.bigint();
  for (const p of projections) sink += rows(p);
  passes.push(Number(process.hrtime.bigint() - t0) / 1e3 / commands);
}
passes.sort((a, b) => a - b);
const trades = projections.reduce((n, p) => n + projectionRows(p).trades.length, 0);
console.error(`[bench] ${commands} commands in ${PROJECTIONS} projections of 20 batches; ${trades} trades; ${sink > 0 ? 'rows built' : 'no rows'}`);
console.log(`projection rows: ${passes[3].toFixed(2)} µs per command (median of 7; min ${passes[0].toFixed(2)})`);
