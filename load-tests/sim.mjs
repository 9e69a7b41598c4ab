// npm run sim -- --seed S --ops N [--users U] [--check-every K]
// Whole-venue simulation (issue "Reliability and security suite", item 1), first slice: simulated
// users registered and funded through the real API place and cancel spot orders on the built
// stack (a fresh database, loopback only), chosen by a seeded PRNG (mulberry32, as
// backend/src/modules/simulator/prng.ts) so a seed replays the same stream of requests. After
// every K operations and at the end, once the in-flight requests are answered, the operator's
// trial balance (GET admin/ledger/trial-balance) must be exact: every currency balanced, no
// negative account, every balance equal to the sum of its ledger entries. A check is retried for
// a few seconds, since the projection of the last acknowledged commands may still be under way.
// Last line: `sim: <ops> ops, <D> discrepancies, seed <S>`.
import { call, loadClient, log, makeTraders, startStack } from './lib/stack.mjs';

const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const SEED = Number(arg('seed', String(Date.now() % 1_000_000)));
const OPS = Number(arg('ops', '2000'));
const USERS = Number(arg('users', '20'));
const CHECK_EVERY = Number(arg('check-every', String(Math.max(500, Math.floor(OPS / 10)))));
const CONCURRENCY = Number(arg('concurrency', '16'));

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = mulberry32(SEED);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  log(`sim: seed ${SEED}, ${OPS} ops, ${USERS} users`);
  const stack = await startStack();
  let discrepancies = 0;
  let done = 0;
  const outcomes = new Map();
  try {
    const traders = await makeTraders(stack, USERS, { 3: '10000000', 1: '1000' });
    for (const t of traders) t.open = [];
    const admin = (await call(stack.apiUrl, 'POST', 'admin/login', { email: stack.env.ADMIN_EMAIL, password: stack.env.ADMIN_PASSWORD })).data.token;
    const client = loadClient(stack.apiUrl, CONCURRENCY);

    const check = async (label) => {
      let last;
      for (let attempt = 0; attempt < 20; attempt++) {
        last = await call(stack.apiUrl, 'GET', 'admin/ledger/trial-balance', undefined, admin);
        if (last.code === 1 && last.data.ok) return;
        await sleep(250);
      }
      const bad = (last.data?.currencies ?? []).filter((c) => !c.balanced || c.negative_accounts || c.projection_mismatches);
      discrepancies += Math.max(1, bad.length);
      log(`check ${label}: NOT exact ${JSON.stringify(bad.length ? bad : last)}`);
    };

    // The operation stream is drawn up front from the seed, so the requests replay whatever the timing.
    const plan = [];
    for (let i = 0; i < OPS; i++) {
      const trader = Math.floor(rand() * traders.length);
      const r = rand();
      if (r < 0.25) plan.push({ trader, kind: 'cancel', pick: rand() });
      else if (r < 0.3) plan.push({ trader, kind: 'market', side: rand() < 0.5 ? 'buy' : 'sell', qty: (0.001 + Math.floor(rand() * 20) * 0.0001).toFixed(4) });
      else {
        const side = rand() < 0.5 ? 'buy' : 'sell';
        const price = (60000 * (1 + (rand() - 0.5) * 0.01)).toFixed(2);
        const quantity = (0.001 + Math.floor(rand() * 50) * 0.0001).toFixed(4);
        plan.push({ trader, kind: 'limit', side, price, quantity });
      }
    }

    const run = async (op) => {
      const t = traders[op.trader];
      let r;
      if (op.kind === 'cancel' && t.open.length) {
        const id = t.open.splice(Math.floor(op.pick * t.open.length), 1)[0];
        r = await client.call('PUT', 'coin/trade', { order_id: id }, t.token);
      } else if (op.kind === 'market') {
        r = await client.call('POST', 'coin/trade', { symbol: 'BTC/USDT', side: op.side, type: 'market', quantity: op.qty }, t.token);
      } else if (op.kind !== 'cancel') {
        r = await client.call('POST', 'coin/trade', { symbol: 'BTC/USDT', side: op.side, type: 'limit', price: op.price, quantity: op.quantity }, t.token);
        if (r.code === 1 && r.data.status === 'waiting') t.open.push(r.data.order_id);
      } else r = { code: 1 };
      const key = `${op.kind}:${r.code}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    };

    const started = performance.now();
    for (let from = 0; from < OPS; from += CHECK_EVERY) {
      const batch = plan.slice(from, from + CHECK_EVERY);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < batch.length) {
            const op = batch[next++];
            await run(op);
            done++;
          }
        }),
      );
      await check(`after ${done} ops`);
      log(`${done} ops, ${discrepancies} discrepancies, ${((done / (performance.now() - started)) * 1000).toFixed(0)} ops/s`);
    }
    await client.close();
    log(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  } finally {
    await stack.stop();
  }
  process.stdout.write(`sim: ${done} ops, ${discrepancies} discrepancies, seed ${SEED}\n`);
  process.exitCode = discrepancies ? 1 : 0;
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.stdout.write(`sim: 0 ops, 1 discrepancies, seed ${SEED}\n`);
  process.exit(1);
});
