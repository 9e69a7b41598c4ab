// npm run bench:wallet-log — a heavy trader's `GET wallet/log`: how long a page and its total take
// when the trader has many spot trades (BENCH_TRADES, default 300,000) and a third as many resting
// orders (their freezes, 901, in their rows). The trades and orders are written straight into a
// fresh database as the projector writes them (test data: the stack's own guard lets the
// projector's session write them); then the
// exchange answers the pages. For comparison it also times the query the endpoint used before
// (the view `ledger` ordered by id, and its full count), on the same data.
// Then the same trader's `GET coin/list` once it also has twice as many finished orders (line
// `coin/list: page 1 <ms> ms, …`).
// Last line: `wallet/log: page 1 <ms> ms, page 5 of one currency <ms> ms (view sorted: <ms> ms)`.
import { call, log, makeTraders, percentile, sql, startStack } from './lib/stack.mjs';

const TRADES = Number(process.env.BENCH_TRADES ?? 300_000);
const RUNS = 7;

const stack = await startStack();
try {
  const [heavy, other] = await makeTraders(stack, 2, { 3: '1000' });
  log(`writing ${TRADES} trades of one trader (maker of two in three) and ${Math.round(TRADES / 3)} of its orders (their freezes)…`);
  await sql(
    stack.databaseUrl,
    `DO $$ BEGIN
       SET LOCAL kestrel.writer = 'projector';
       INSERT INTO trades (market_id, trade_id, price, quantity, quote_quantity, taker_side, maker_order_id, taker_order_id, maker_user_id, taker_user_id,
         maker_fee, taker_fee, executed_at, ledger_id, event_seq, base_currency_id, quote_currency_id, maker_pay_available_after, maker_pay_frozen_after,
         maker_receive_available_after, maker_receive_frozen_after, taker_pay_available_after, taker_pay_frozen_after, taker_receive_available_after, taker_receive_frozen_after)
       SELECT 1, 1000000 + g, 60000, 0.001, 60, CASE WHEN g % 2 = 0 THEN 'buy' ELSE 'sell' END, 2 * g, 2 * g + 1,
         CASE WHEN g % 3 = 0 THEN ${other.id} ELSE ${heavy.id} END, CASE WHEN g % 3 = 0 THEN ${heavy.id} ELSE ${other.id} END,
         0.00001, 0.06, now(), 1000000000 + 16 * g, g, 1, 3, 10, 1, 10, 0, 10, 1, 10, 0
       FROM generate_series(1, ${TRADES}) g;
       INSERT INTO orders (id, user_id, market_id, side, type, price, quantity, frozen_currency_id, frozen_left, status, frozen_amount, freeze_ledger_id, freeze_seq, freeze_available_after, freeze_frozen_after)
       SELECT 1000000 + g, ${heavy.id}, 1, 'buy', 'limit', 1, 1, 3, 1, 'waiting', 1, 1000000008 + 16 * g, g, 10, 1 FROM generate_series(1, ${TRADES}, 3) g;
     END $$`,
  );
  await sql(stack.databaseUrl, 'ANALYZE');
  const timed = async (f) => {
    const ms = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await f();
      ms.push(performance.now() - t0);
    }
    return percentile(
      ms.sort((a, b) => a - b),
      50,
    ).toFixed(1);
  };
  /** A page of the heavy trader's `path` (wallet/log, coin/list), which must come back full. */
  const fullPage = (path) => (query) => async () => {
    const r = await call(stack.apiUrl, 'GET', `${path}?${new URLSearchParams(query)}`, undefined, heavy.token);
    if (r.code !== 1 || r.data.items.length !== query.limit) throw new Error(`${path}: ${JSON.stringify(r).slice(0, 200)}`);
  };
  const page = fullPage('wallet/log');
  const first = await timed(page({ page: 1, limit: 20 }));
  const fifth = await timed(page({ page: 5, limit: 20, currency_id: 1 }));
  const frozen = await timed(page({ page: 1, limit: 20, code: 901 }));
  const view = await timed(() =>
    sql(stack.databaseUrl, `SELECT e.id::text FROM ledger e WHERE e.owner_type = 'user' AND e.owner_id = $1 ORDER BY e.id DESC LIMIT 20`, [heavy.id]),
  );
  const count = await timed(() => sql(stack.databaseUrl, `SELECT COUNT(*) FROM ledger e WHERE e.owner_type = 'user' AND e.owner_id = $1`, [heavy.id]));
  log(`medians of ${RUNS}: the view's first page sorted ${view} ms, its full count ${count} ms; code 901's first page ${frozen} ms`);
  // coin/list of the same trader once it also has twice as many finished orders, newer than its resting ones
  // (two in three completed, one in three cancelled, in two markets), among another trader's.
  await sql(
    stack.databaseUrl,
    `DO $$ BEGIN
       SET LOCAL kestrel.writer = 'projector';
       INSERT INTO orders (id, user_id, market_id, side, type, price, quantity, frozen_currency_id, frozen_left, status, filled_qty, filled_quote)
       SELECT 2000000 + g, CASE WHEN g % 4 = 0 THEN ${other.id} ELSE ${heavy.id} END, 1 + g % 2, 'sell', 'limit', 1, 1, 1 + g % 2, 0,
         CASE WHEN g % 3 = 0 THEN 'cancelled' ELSE 'completed' END, CASE WHEN g % 3 = 0 THEN 0 ELSE 1 END, CASE WHEN g % 3 = 0 THEN 0 ELSE 1 END
       FROM generate_series(1, ${Math.round((TRADES * 2 * 4) / 9)}) g;
     END $$`,
  );
  await sql(stack.databaseUrl, 'ANALYZE orders');
  const list = fullPage('coin/list');
  const listFirst = await timed(list({ page: 1, limit: 20 }));
  const listFifth = await timed(list({ page: 5, limit: 20 }));
  const listWaiting = await timed(list({ page: 1, limit: 20, status: 'waiting' }));
  const listSymbol = await timed(list({ page: 1, limit: 20, symbol: 'ETH/USDT' }));
  console.log(`coin/list: page 1 ${listFirst} ms, page 5 ${listFifth} ms, page 1 waiting ${listWaiting} ms, page 1 of one market ${listSymbol} ms`);
  console.log(`wallet/log: page 1 ${first} ms, page 5 of one currency ${fifth} ms (view sorted: ${view} ms)`);
} finally {
  await stack.stop();
}
