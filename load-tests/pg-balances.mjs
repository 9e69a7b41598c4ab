// `node load-tests/pg-balances.mjs [--accounts N] [--rows K] [--transactions T]`: what rewriting
// the sequencer's balance rows costs PostgreSQL in CPU per row, in two forms: `upsert`, one
// `INSERT … ON CONFLICT DO UPDATE` of every row (ROWS in backend/src/modules/engine/projector.ts),
// and `update`, an `UPDATE … FROM` the rows that exist plus an insert of the others (tried in
// c473072 and reverted: it writes fewer WAL records, no row lock and no sequence value per
// rewritten row, but costs more CPU; docs/performance.md, the ninety-third sitting). A fresh stack's
// database (its migrations, its writer guard's triggers) gets N trade-account rows; then T
// transactions of each form, alternated in blocks of 50, each rewriting K of the rows picked at
// random (the same picks for both forms), as the projector's transactions do (`kestrel.writer =
// 'projector'`, `synchronous_commit = off`). The backend's user and system CPU is read from /proc.
// Last line: `pg balances: upsert <µs> µs, update <µs> µs CPU per row (<K> rows a transaction)`.
import { backendProbe, log, numberArg, startStack } from './lib/stack.mjs';

const ACCOUNTS = numberArg('accounts', 400);
const ROWS = numberArg('rows', 150);
const TRANSACTIONS = numberArg('transactions', 2000);
const BLOCK = 50;

const values = `unnest($1::varchar[], $2::int[], $3::varchar[], $4::int[], $5::numeric[], $6::numeric[]) v(ot, oi, at, ci, a, f)`;
const FORMS = {
  upsert: `INSERT INTO balances (owner_type, owner_id, account_type, currency_id, available, frozen)
    SELECT ot, oi, at, ci, a, f FROM ${values}
    ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO UPDATE SET available = EXCLUDED.available, frozen = EXCLUDED.frozen, updated_at = now()`,
  update: `WITH balances_v AS (SELECT * FROM ${values}),
    balances_set AS (
      UPDATE balances b SET available = v.a, frozen = v.f, updated_at = now() FROM balances_v v
      WHERE b.owner_type = v.ot AND b.owner_id = v.oi AND b.account_type = v.at AND b.currency_id = v.ci
      RETURNING b.owner_type, b.owner_id, b.account_type, b.currency_id)
    INSERT INTO balances (owner_type, owner_id, account_type, currency_id, available, frozen)
    SELECT ot, oi, at, ci, a, f FROM balances_v v
    WHERE NOT EXISTS (SELECT 1 FROM balances_set s WHERE s.owner_type = v.ot AND s.owner_id = v.oi AND s.account_type = v.at AND s.currency_id = v.ci)
    ON CONFLICT (owner_type, owner_id, account_type, currency_id) DO UPDATE SET available = EXCLUDED.available, frozen = EXCLUDED.frozen, updated_at = now()`,
};

/** A seeded pick of K distinct accounts of N (a 32-bit LCG: the same picks every run and for both forms). */
let seed = 42;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const picks = Array.from({ length: TRANSACTIONS }, () => {
  const all = Array.from({ length: ACCOUNTS }, (_, i) => i);
  for (let i = 0; i < ROWS; i++) {
    const j = i + Math.floor(random() * (ACCOUNTS - i));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all.slice(0, ROWS).sort((a, b) => a - b);
});

const stack = await startStack();
const { client, cpu } = await backendProbe(stack.databaseUrl);
try {
  const [{ id: currency }] = (await client.query('SELECT min(id) AS id FROM coins')).rows;
  const columns = (ids, amount) => [
    ids.map(() => 'user'),
    ids.map((i) => 1_000_000 + i),
    ids.map(() => 'coin'),
    ids.map(() => currency),
    ids.map(() => amount),
    ids.map(() => '0'),
  ];
  const run = async (text, params) => {
    await client.query("BEGIN; SET LOCAL kestrel.writer = 'projector'; SET LOCAL synchronous_commit = off");
    await client.query(text, params);
    await client.query('COMMIT');
  };
  await run(
    FORMS.upsert,
    columns(
      Array.from({ length: ACCOUNTS }, (_, i) => i),
      '1',
    ),
  );
  const spent = { upsert: 0, update: 0 };
  for (let b = 0; b < TRANSACTIONS / BLOCK; b++) {
    for (const form of b % 2 ? ['update', 'upsert'] : ['upsert', 'update']) {
      const before = cpu();
      for (let k = b * BLOCK; k < Math.min((b + 1) * BLOCK, TRANSACTIONS); k++) await run(FORMS[form], columns(picks[k], String(k)));
      const after = cpu();
      spent[form] += after.user - before.user + after.system - before.system;
    }
  }
  const [{ n }] = (await client.query(`SELECT count(*)::int AS n FROM balances WHERE owner_id >= 1000000`)).rows;
  if (n !== ACCOUNTS) throw new Error(`pg-balances: ${n} rows, not ${ACCOUNTS}`);
  const perRow = (form) => (spent[form] / (TRANSACTIONS * ROWS)).toFixed(2);
  log(`${ACCOUNTS} accounts, ${TRANSACTIONS} transactions of each form, ${ROWS} rows each`);
  console.log(`pg balances: upsert ${perRow('upsert')} µs, update ${perRow('update')} µs CPU per row (${ROWS} rows a transaction)`);
} finally {
  await client.end();
  await stack.stop();
}
