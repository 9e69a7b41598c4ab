// npm run bench:settle — 10,000 options that are all due at once, delivered by the BullMQ worker.
// The options are bought through the API while the delivery queue is paused (buying 10,000
// takes longer than a delivery period here); once every one is due and its delivery tick is
// recorded, the queue is resumed and the clock runs until all are paid. Then the trial balance
// is checked. Last line: `settled: <N> in <S> s`.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, log, makeTraders, startStack, verifyTraders } from './lib/stack.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const { Client } = require('pg');
const { Queue } = require('bullmq');
const OPTIONS = Number(process.env.BENCH_OPTIONS ?? 10000);
const USERS = Number(process.env.BENCH_USERS ?? 40);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 100);

const stack = await startStack({ simulator: true, env: { FLASH_FLOAT: 'USDT:100000000' } });
const db = new Client({ connectionString: stack.databaseUrl });
await db.connect();
const queue = new Queue('option-delivery', { connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, prefix: `${stack.env.REDIS_PREFIX}bull` });
await queue.pause();
try {
  log(`making ${USERS} verified traders with option accounts…`);
  const traders = await makeTraders(stack, USERS, { 3: '1000000' });
  await verifyTraders(stack, traders);
  for (const u of traders) {
    const r = await call(stack.apiUrl, 'POST', 'wallet/change', { from: 'coin', to: 'option', currency_id: '3', amount: '1000000' }, u.token);
    if (r.code !== 1) throw new Error(`transfer: ${JSON.stringify(r)}`);
  }
  const periods = await (await fetch(`${stack.apiUrl}/api/microtrade/seconds`)).json();
  const p30 = periods.data.find((p) => p.seconds === 30);
  // The simulator trades within a second or two; the first purchase needs a recorded tick.
  for (let i = 0; i < 60; i++) {
    const [row] = (await db.query('SELECT COUNT(*)::int AS n FROM mark_prices')).rows;
    if (row.n > 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }

  log(`buying ${OPTIONS} options (30 s delivery) through the API…`);
  let next = 0;
  let refused = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      while (next < OPTIONS) {
        const i = next++;
        const u = traders[(w + i) % traders.length];
        const r = await call(stack.apiUrl, 'POST', 'microtrade/submit', { symbol: i % 2 ? 'BTC/USDT' : 'ETH/USDT', direction: i % 3 ? 'up' : 'down', period_id: String(p30.id), quantity: String(10 + (i % 90)) }, u.token);
        if (r.code !== 1) refused++;
      }
    }),
  );
  log(`bought in ${((Date.now() - t0) / 1000).toFixed(1)} s (${refused} refused)`);

  // Wait until every option is due and the sampler has recorded a tick after the last delivery time.
  const [{ last }] = (await db.query(`SELECT MAX(deliver_at) AS last FROM option_orders`)).rows;
  for (;;) {
    const { m } = (await db.query('SELECT COUNT(DISTINCT market_id)::int AS m FROM mark_prices WHERE ts >= $1', [last])).rows[0];
    if (m >= 2) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const [{ due }] = (await db.query(`SELECT COUNT(*)::int AS due FROM option_orders WHERE status = 'pending' AND deliver_at <= now()`)).rows;
  log(`${due} options are due now; resuming the delivery queue…`);
  const start = Date.now();
  await queue.resume();
  let pending = due;
  while (pending > 0 && Date.now() - start < 120_000) {
    await new Promise((r) => setTimeout(r, 50));
    pending = (await db.query(`SELECT COUNT(*)::int AS n FROM option_orders WHERE status = 'pending'`)).rows[0].n;
  }
  const seconds = (Date.now() - start) / 1000;
  const tb = await (await fetch(`${stack.apiUrl}/api/admin/ledger/trial-balance`, { headers: { authorization: (await call(stack.apiUrl, 'POST', 'admin/login', { email: 'bench@kestrel.local', password: 'bench-admin-password' })).data.token } })).json();
  const [{ settled }] = (await db.query(`SELECT COUNT(*)::int AS settled FROM option_orders WHERE status = 'delivered'`)).rows;
  console.log(`still pending: ${pending}; trial balance ok: ${tb.data.ok}`);
  console.log(`settled: ${settled} in ${seconds.toFixed(2)} s`);
} finally {
  await queue.close();
  await db.end();
  await stack.stop();
}
