// What PostgreSQL's write-ahead log holds for a bench's measured window (`BENCH_PG_WAL=1 npm run
// bench:core`, or `bench:api`): the WAL's records between the window's two positions, by kind
// (pg_walinspect, a contrib extension created in the bench's database; the bench connects as a
// superuser), per acknowledged order. The WAL is the cluster's, so anything else the server does in
// the window is counted too (nothing else runs during a bench). A CHECKPOINT when the sampler is
// made (before the warm-up) keeps a timed checkpoint from recycling the window's segments before
// they are read and has the warm-up, not the window, pay for the full-page images that follow a
// checkpoint.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

// The flushed position: PostgreSQL 15's pg_walinspect reads only WAL already flushed ("cannot accept
// future end LSN"), and asynchronous commits (the projection's) leave the insert position ahead of it
// for a moment.
const LSN = 'SELECT pg_current_wal_flush_lsn()::text AS lsn';

export async function walWindow({ databaseUrl }) {
  const client = new Client({ connectionString: databaseUrl });
  // The bench drops its database with this connection still open if a run fails: not a crash.
  client.on('error', () => undefined);
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  await client.query('CHECKPOINT');
  let start;
  return {
    /** The window's start. */
    async mark() {
      start = (await client.query(LSN)).rows[0].lsn;
    },
    /** The window's records by kind (resource manager/record type), most bytes first. */
    async stop() {
      try {
        const end = (await client.query(LSN)).rows[0].lsn;
        const { rows } = await client.query(
          `SELECT "resource_manager/record_type" AS kind, count::float8 AS records, combined_size::float8 AS bytes, fpi_size::float8 AS fpi
             FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) WHERE count > 0 ORDER BY combined_size DESC`,
          [start, end],
        );
        return rows;
      } finally {
        await client.end();
      }
    },
  };
}

/** The window's WAL as two lines: bytes per order (full-page images among them), and the kinds that make up 90 % of it. */
export function walText(rows, orders, top = 0.9) {
  const total = rows.reduce((s, r) => s + r.bytes, 0);
  const fpi = rows.reduce((s, r) => s + r.fpi, 0);
  const per = (n) => n / Math.max(1, orders);
  const kinds = [];
  let shown = 0;
  for (const r of rows) {
    if (shown >= top * total) break;
    shown += r.bytes;
    kinds.push(`${r.kind} ${((100 * r.bytes) / Math.max(1, total)).toFixed(1)} % (${per(r.records).toFixed(2)}/order)`);
  }
  return [
    `WAL: ${(total / 1e6).toFixed(1)} MB, ${per(total).toFixed(0)} bytes per order (full-page images ${per(fpi).toFixed(0)})`,
    `WAL by kind (bytes; records per order): ${kinds.join(', ')}`,
  ];
}
