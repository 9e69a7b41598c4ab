// `node load-tests/pg-growth.mjs [--orders N]` (after `npm run build`): how much PostgreSQL grows
// per spot order, the figure that sizes the next step of scaling the database (docs/operations.md,
// "Scaling PostgreSQL"). A fresh stack on a fresh database, 8 funded traders, N orders of the
// bench mix (limit orders ±0.5% around 60,000, a quarter of the requests cancels), then once the
// projector has caught up: rows and bytes (heap + indexes + TOAST) per acknowledged order for each
// table that grows with trading, and what a month at 1,000 orders/s would hold.
// Last line: `pg growth: <B> bytes/order (<table> <b>, …); a month at 1,000 orders/s: <G> GB`.
import { loadClient, log, makeTraders, numberArg, orderMix, sql, startStack } from './lib/stack.mjs';

const ORDERS = numberArg('orders', 20_000);
const CONCURRENCY = 16;
const TABLES = ['ledger_entries', 'events', 'orders', 'trades', 'sequencer_journal', 'sequencer_snapshots', 'sequencer_commands', 'klines'];

const stack = await startStack();
try {
  const traders = await makeTraders(stack, 8, { 3: '100000000', 1: '10000' });
  const sizes = async () => {
    await sql(stack.databaseUrl, `VACUUM ANALYZE`);
    const rows = await sql(
      stack.databaseUrl,
      `SELECT c.relname AS table, pg_total_relation_size(c.oid)::bigint AS bytes, c.reltuples::bigint AS rows
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname = ANY($1)`,
      [TABLES],
    );
    return new Map(rows.map((r) => [r.table, { bytes: Number(r.bytes), rows: Math.max(Number(r.rows), 0) }]));
  };
  const before = await sizes();
  const client = loadClient(stack.apiUrl, CONCURRENCY);
  const mix = orderMix(0.25);
  const open = traders.map(() => []);
  let acked = 0;
  let next = 0;
  const worker = async (w) => {
    for (;;) {
      const i = next++;
      if (i >= ORDERS) return;
      const t = (i + w) % traders.length;
      const cancel = mix.cancelFrom(open[t]);
      if (cancel) {
        await client.call('PUT', 'coin/trade', { order_id: cancel }, traders[t].token);
        continue;
      }
      const r = await client.call('POST', 'coin/trade', mix.order(), traders[t].token);
      if (r.code !== 1) throw new Error(`order: ${JSON.stringify(r)}`);
      acked += 1;
      if (r.data.status === 'waiting') open[t].push(r.data.order_id);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  await client.close();
  // The projector has caught up when the projection watermark reaches the journal head.
  for (let i = 0; i < 300; i++) {
    const [p] = await sql(stack.databaseUrl, `SELECT (SELECT COALESCE(MAX(seq),0) FROM sequencer_journal) - (SELECT seq FROM sequencer_projection WHERE id = 1) AS lag`);
    if (Number(p.lag) === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const after = await sizes();
  const per = TABLES.filter((t) => after.has(t)).map((t) => {
    const a = after.get(t);
    const b = before.get(t) ?? { bytes: 0, rows: 0 };
    return { table: t, bytes: (a.bytes - b.bytes) / acked, rows: (a.rows - b.rows) / acked, rowBytes: a.rows > b.rows ? (a.bytes - b.bytes) / (a.rows - b.rows) : 0 };
  });
  for (const p of per) log(`${p.table.padEnd(20)} ${p.rows.toFixed(2).padStart(6)} rows/order  ${p.bytes.toFixed(0).padStart(6)} bytes/order  (${p.rowBytes.toFixed(0)} bytes/row)`);
  const total = per.reduce((s, p) => s + p.bytes, 0);
  const month = (total * 1000 * 86400 * 30) / 1e9;
  log(`${acked} orders acknowledged (${ORDERS} requests, cancels included)`);
  process.stdout.write(
    `pg growth: ${total.toFixed(0)} bytes/order (${per
      .filter((p) => p.bytes >= 1)
      .map((p) => `${p.table} ${p.bytes.toFixed(0)}`)
      .join(', ')}); a month at 1,000 orders/s: ${month.toFixed(0)} GB\n`,
  );
} finally {
  await stack.stop();
}
