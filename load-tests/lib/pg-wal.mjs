// What PostgreSQL's write-ahead log holds for a bench's measured window (`BENCH_PG_WAL=1 npm run
// bench:core`, or `bench:api`): the WAL's records between the window's two positions, by kind
// (pg_walinspect, a contrib extension created in the bench's database; the bench connects as a
// superuser), per acknowledged order, and by the table or index each record changes. The WAL is
// the cluster's, so anything else the server does in the window is counted too (nothing else runs
// during a bench). A CHECKPOINT when the sampler is made (before the warm-up) keeps a timed
// checkpoint from recycling the window's segments before they are read and has the warm-up, not
// the window, pay for the full-page images that follow a checkpoint.
import { benchClient } from './stack.mjs';

// The flushed position: PostgreSQL 15's pg_walinspect reads only WAL already flushed ("cannot
// accept future end LSN"), and asynchronous commits (the projection's) leave the insert position
// ahead of it for a moment.
const LSN = 'SELECT pg_current_wal_flush_lsn()::text AS lsn';

// The window's records in one pass, by kind (resource manager/record type) and by the relation of
// each record's first block reference ("blkref #<n>: rel <tablespace>/<database>/<file node> …"),
// named while the bench's database still exists. A record without one (a commit) is `(no block)`;
// one in another database, a shared catalogue, or a file node no longer in the catalogue (dropped
// or rewritten since) is `(other)`. A record's length includes its full-page images.
const RECORDS = `
  WITH r AS (
    SELECT resource_manager || '/' || record_type AS kind, record_length::float8 AS bytes, fpi_length::float8 AS fpi,
           regexp_match(block_ref, 'blkref #\\d+: rel (\\d+)/(\\d+)/(\\d+)') AS m
      FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
  ), db AS (SELECT oid, dattablespace FROM pg_database WHERE datname = current_database())
  SELECT CASE WHEN r.m IS NULL THEN '(no block)'
              WHEN r.m[2]::oid <> db.oid THEN '(other)'
              ELSE coalesce(pg_filenode_relation(CASE WHEN r.m[1]::oid = db.dattablespace THEN 0 ELSE r.m[1]::oid END,
                                                 r.m[3]::oid)::text, '(other)') END AS relation,
         r.kind, count(*)::float8 AS records, sum(r.bytes) AS bytes, sum(r.fpi) AS fpi
    FROM r, db GROUP BY 1, 2`;

export async function walWindow({ databaseUrl }) {
  const client = await benchClient(databaseUrl);
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  await client.query('CHECKPOINT');
  let start;
  return {
    /** The window's start. */
    async mark() {
      start = (await client.query(LSN)).rows[0].lsn;
    },
    /** The window's records, one row per relation and kind (none if nothing was written). */
    async stop() {
      try {
        const end = (await client.query(LSN)).rows[0].lsn;
        // pg_walinspect refuses an empty window (its start must be below its end).
        return end === start ? [] : (await client.query(RECORDS, [start, end])).rows;
      } finally {
        await client.end();
      }
    },
  };
}

/** The rows summed by `key`: its value → records, bytes, full-page bytes and the rows themselves. */
function sumBy(rows, key) {
  const groups = new Map();
  for (const r of rows) {
    const g = groups.get(r[key]) ?? { name: r[key], records: 0, bytes: 0, fpi: 0, rows: [] };
    g.records += r.records;
    g.bytes += r.bytes;
    g.fpi += r.fpi;
    g.rows.push(r);
    groups.set(r[key], g);
  }
  return [...groups.values()];
}

/**
 * The window's WAL as three lines: bytes per order (full-page images among them), the kinds that
 * make up `top` of its bytes, and the relations by records per order (those with at least 0.005
 * an order, each with its kinds of at least 0.005 an order).
 */
export function walText(rows, orders, top = 0.9) {
  const kinds = sumBy(rows, 'kind').sort((a, b) => b.bytes - a.bytes);
  const total = kinds.reduce((s, k) => s + k.bytes, 0);
  const fpi = kinds.reduce((s, k) => s + k.fpi, 0);
  const per = (n) => n / Math.max(1, orders);
  const shares = [];
  let shown = 0;
  for (const k of kinds) {
    if (shown >= top * total) break;
    shown += k.bytes;
    shares.push(`${k.name} ${((100 * k.bytes) / Math.max(1, total)).toFixed(1)} % (${per(k.records).toFixed(2)}/order)`);
  }
  const tables = sumBy(rows, 'relation')
    .filter((rel) => per(rel.records) >= 0.005)
    .sort((a, b) => b.records - a.records || a.name.localeCompare(b.name))
    .map((rel) => {
      const parts = rel.rows
        .filter((r) => per(r.records) >= 0.005)
        .sort((a, b) => b.records - a.records || a.kind.localeCompare(b.kind))
        .map((r) => `${r.kind} ${per(r.records).toFixed(2)}`);
      return `${rel.name} ${per(rel.records).toFixed(2)} (${parts.join(', ')})`;
    });
  return [
    `WAL: ${(total / 1e6).toFixed(1)} MB, ${per(total).toFixed(0)} bytes per order (full-page images ${per(fpi).toFixed(0)})`,
    `WAL by kind (bytes; records per order): ${shares.join(', ')}`,
    `WAL by relation (records per order): ${tables.join('; ')}`,
  ];
}
