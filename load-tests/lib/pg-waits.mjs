// What the journal's PostgreSQL backend waits on during a bench (`BENCH_PG_WAITS=1 npm run
// bench:core`): `pg_stat_activity` read every `everyMs` on a connection of its own, each sample of
// the journal's append counted by its wait event (CPU when it waits on nothing), and for a sample
// whose append has run longer than `slowMs`, what the other busy sessions of the database were
// doing at that moment. The sampling costs PostgreSQL a little CPU (a query every `everyMs`), so a
// run with it is a diagnosis, not a figure.
import { benchClient } from './stack.mjs';

const JOURNAL = 'INSERT INTO sequencer_journal';

export async function samplePgWaits({ databaseUrl, everyMs = 5, slowMs = 10 }) {
  const client = await benchClient(databaseUrl);
  const waits = new Map();
  const beside = new Map();
  let samples = 0;
  let slow = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await client.query(
        `SELECT pid, state, COALESCE(wait_event_type || ':' || wait_event, 'CPU') AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 40) AS query,
                extract(epoch FROM clock_timestamp() - query_start) * 1000 AS ms
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      for (const r of rows) {
        if (r.state !== 'active' || !r.query.startsWith(JOURNAL)) continue;
        samples++;
        waits.set(r.wait, (waits.get(r.wait) ?? 0) + 1);
        if (r.ms < slowMs) continue;
        slow++;
        for (const o of rows) {
          if (o.pid === r.pid || o.state !== 'active') continue;
          const k = `${o.query.slice(0, 28)}… [${o.wait}]`;
          beside.set(k, (beside.get(k) ?? 0) + 1);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await client.end();
      return { samples, waits, slow, beside, slowMs };
    },
  };
}

/** The samples as two lines: the append's waits by share, and what ran beside its slow samples. */
export function pgWaitsText({ samples, waits, slow, beside, slowMs }) {
  const share = (n, of) => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
  return [
    `journal append in PostgreSQL (${samples} samples): ${sorted(waits)
      .map(([w, n]) => `${w} ${share(n, samples)}`)
      .join(', ')}`,
    `beside its ${slow} samples past ${slowMs} ms: ${
      sorted(beside)
        .slice(0, 6)
        .map(([k, n]) => `${k} ${share(n, slow)}`)
        .join(', ') || 'nothing else active'
    }`,
  ];
}
