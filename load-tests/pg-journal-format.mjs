// `node load-tests/pg-journal-format.mjs [--rows N]`: what storing a journal row's commands as jsonb
// costs PostgreSQL against storing the same JSON as text (migration JournalText). For batches of 10
// and 60 place commands (bench:core's p50 and the closed loop's), N rows each, in one transaction
// (no flush in the figure), as a named statement (as the journal appends), on two scratch tables
// compressed with lz4 where the server has it, alternating the two formats three times; then each
// table read back as text (a replay or the projector reading the journal). The backend's CPU is read
// from /proc; a fresh database on DATABASE_URL's server, dropped at the end.
// Last line: `journal format: <B> commands: jsonb <J> µs, text <T> µs per row written; read jsonb <RJ>, text <RT> µs per row` (medians).
import { backendProbe, freshStackEnv, log, numberArg } from './lib/stack.mjs';

const N = numberArg('rows', 4000);
const ROUNDS = 3;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const place = (k) => ({ t: 'place', userId: 1000 + (k % 100), marketId: 1, side: k % 2 ? 'buy' : 'sell', type: 'limit', price: 6_000_000 + (k % 500), qty: 1 + (k % 7), quoteBudget: 0, clientOrderId: null });

const { databaseUrl, dropDatabase } = await freshStackEnv();
const probe = await backendProbe(databaseUrl).catch(async (err) => {
  await dropDatabase();
  throw err;
});
const { client } = probe;
/** The backend's user + system CPU so far, µs. */
const cpu = () => {
  const t = probe.cpu();
  return t.user + t.system;
};
try {
  const [lz4] = (await client.query(`SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)`)).rows;
  for (const type of ['jsonb', 'text']) {
    await client.query(`CREATE TABLE journal_${type} (seq bigint PRIMARY KEY, ts bigint NOT NULL, commands ${type} NOT NULL)`);
    if (lz4) await client.query(`ALTER TABLE journal_${type} ALTER COLUMN commands SET COMPRESSION lz4`);
  }
  const lines = [];
  for (const size of [10, 60]) {
    const body = JSON.stringify(Array.from({ length: size }, (_, k) => place(k)));
    const write = { jsonb: [], text: [] };
    const read = { jsonb: [], text: [] };
    for (let r = 0; r < ROUNDS; r++)
      for (const type of ['jsonb', 'text']) {
        await client.query(`TRUNCATE journal_${type}`);
        const c0 = cpu();
        await client.query('BEGIN');
        for (let k = 0; k < N; k++)
          await client.query({ name: `append_${type}`, text: `INSERT INTO journal_${type} (seq, ts, commands) VALUES ($1, $2, $3)`, values: [k, Date.now(), body] });
        await client.query('COMMIT');
        write[type].push((cpu() - c0) / N);
        const r0 = cpu();
        await client.query(`SELECT seq, ts, commands::text AS commands FROM journal_${type} ORDER BY seq`);
        read[type].push((cpu() - r0) / N);
      }
    const f = (xs) => median(xs).toFixed(0);
    log(`${size} commands (${body.length} bytes of JSON): written jsonb ${write.jsonb.map((x) => x.toFixed(0)).join(', ')} µs, text ${write.text.map((x) => x.toFixed(0)).join(', ')} µs per row`);
    lines.push(`${size} commands: jsonb ${f(write.jsonb)} µs, text ${f(write.text)} µs per row written; read jsonb ${f(read.jsonb)}, text ${f(read.text)} µs per row`);
  }
  for (const l of lines) console.log(`journal format: ${l}`);
} finally {
  await client.end();
  await dropDatabase();
}
