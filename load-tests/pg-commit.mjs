// `node load-tests/pg-commit.mjs [--commits N]`: what one commit costs PostgreSQL in CPU on this
// machine — the fixed cost behind every journal row (a synchronous commit: the row waits for the
// disk) and every projector transaction (`synchronous_commit = off`). N one-row inserts of a small
// JSON document, each its own transaction, on one connection, as a named statement (as the journal
// appends), first synchronous then asynchronous; the backend's user and system CPU is read from
// /proc. On a scratch table in a fresh database (DATABASE_URL's server), dropped at the end.
// Last line: `pg commit: sync <U>+<S> µs CPU (<T> µs wall), async <U>+<S> µs CPU (<T> µs wall)`.
import { createRequire } from 'node:module';
import { cpuTimes, freshStackEnv, log } from './lib/stack.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const i = process.argv.indexOf('--commits');
const N = i > 0 ? Number(process.argv[i + 1]) : 5000;

const { databaseUrl, dropDatabase } = await freshStackEnv();
const client = new Client({ connectionString: databaseUrl });
try {
  await client.connect();
  const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows;
  // The backend's user and system CPU in µs (clock ticks of 10 ms).
  const cpu = () => {
    const t = cpuTimes({ backend: [pid] }).get(pid);
    return { user: t.user * 10_000, system: t.system * 10_000 };
  };
  await client.query('CREATE TABLE commit_probe (id bigint PRIMARY KEY, doc jsonb NOT NULL)');
  const doc = JSON.stringify([{ t: 'place', u: 1, m: 1, s: 'buy', p: '6000000', q: '100' }]);
  const parts = [];
  for (const mode of ['on', 'off']) {
    await client.query(`SET synchronous_commit = ${mode}`);
    const before = cpu();
    const t0 = performance.now();
    for (let k = 0; k < N; k++) await client.query({ name: 'probe', text: 'INSERT INTO commit_probe (id, doc) VALUES ($1, $2)', values: [k + (mode === 'on' ? 0 : N), doc] });
    const wall = ((performance.now() - t0) * 1000) / N;
    const after = cpu();
    const u = Math.round((after.user - before.user) / N);
    const s = Math.round((after.system - before.system) / N);
    log(`${mode === 'on' ? 'synchronous' : 'asynchronous'}: ${N} commits, user ${u} µs, system ${s} µs, wall ${wall.toFixed(0)} µs each`);
    parts.push(`${mode === 'on' ? 'sync' : 'async'} ${u}+${s} µs CPU (${wall.toFixed(0)} µs wall)`);
  }
  console.log(`pg commit: ${parts.join(', ')}`);
} finally {
  await client.end().catch(() => undefined);
  await dropDatabase();
}
