// `node load-tests/pg-commit.mjs [--commits N]`: what one commit costs PostgreSQL in CPU on this
// machine — the fixed cost behind every journal row (a synchronous commit: the row waits for the
// disk) and every projector transaction (`synchronous_commit = off`). N one-row inserts of a small
// JSON document, each its own transaction, on one connection, as a named statement (as the journal
// appends), first synchronous then asynchronous; the backend's user and system CPU is read from
// /proc. On a scratch table in a fresh database (DATABASE_URL's server), dropped at the end.
// It also prints each mode's wall time per commit as a distribution (p50, p99, p99.9, max, and how
// many took over 20 ms): a synchronous commit waits for the disk's flush, so its tail is the
// slowest a journal write can be on this machine with nothing else running (the core's p99 target
// is 20 ms). Last line: `pg commit: sync <U>+<S> µs CPU (<T> µs wall), async <U>+<S> µs CPU (<T> µs wall)`.
import { backendProbe, freshStackEnv, log, numberArg, percentile } from './lib/stack.mjs';

const N = numberArg('commits', 5000);

const { databaseUrl, dropDatabase } = await freshStackEnv();
const { client, cpu } = await backendProbe(databaseUrl).catch(async (err) => {
  await dropDatabase();
  throw err;
});
try {
  await client.query('CREATE TABLE commit_probe (id bigint PRIMARY KEY, doc jsonb NOT NULL)');
  const doc = JSON.stringify([{ t: 'place', u: 1, m: 1, s: 'buy', p: '6000000', q: '100' }]);
  const parts = [];
  for (const mode of ['on', 'off']) {
    await client.query(`SET synchronous_commit = ${mode}`);
    const before = cpu();
    const t0 = performance.now();
    const each = [];
    for (let k = 0; k < N; k++) {
      const c0 = performance.now();
      await client.query({ name: 'probe', text: 'INSERT INTO commit_probe (id, doc) VALUES ($1, $2)', values: [k + (mode === 'on' ? 0 : N), doc] });
      each.push(performance.now() - c0);
    }
    const wall = ((performance.now() - t0) * 1000) / N;
    const after = cpu();
    const u = Math.round((after.user - before.user) / N);
    const s = Math.round((after.system - before.system) / N);
    const name = mode === 'on' ? 'synchronous' : 'asynchronous';
    log(`${name}: ${N} commits, user ${u} µs, system ${s} µs, wall ${wall.toFixed(0)} µs each`);
    each.sort((a, b) => a - b);
    const ms = (p) => percentile(each, p).toFixed(2);
    log(`${name}: wall ms per commit p50 ${ms(50)} p99 ${ms(99)} p99.9 ${ms(99.9)} max ${each[N - 1].toFixed(1)}; over 20 ms: ${each.filter((t) => t > 20).length}`);
    parts.push(`${mode === 'on' ? 'sync' : 'async'} ${u}+${s} µs CPU (${wall.toFixed(0)} µs wall)`);
  }
  console.log(`pg commit: ${parts.join(', ')}`);
} finally {
  await client.end().catch(() => undefined);
  await dropDatabase();
}
