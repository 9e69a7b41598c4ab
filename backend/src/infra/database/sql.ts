import type { PoolClient } from 'pg';
import { EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { BusinessError } from '../http/business-error';
import { ErrorCode } from '../http/error-codes';

/** Rows of an `UPDATE … RETURNING` (TypeORM answers UPDATE/DELETE on Postgres as `[rows, affectedCount]`). */
export async function updateReturning<T>(m: Pick<EntityManager, 'query'>, sql: string, params: unknown[]): Promise<T[]> {
  const result = await m.query(sql, params);
  return Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number' ? (result[0] as T[]) : (result as T[]);
}

/**
 * A hot statement of a transaction (`m` from `dataSource.transaction`) as a named prepared
 * statement: PostgreSQL parses it once per connection, and after five executions reuses a generic
 * plan where its estimate allows (these statements take arrays, so the estimate is the same for
 * every batch) instead of planning every call. On the order path the statements are large (CTEs
 * over unnest arrays) and the batches small at moderate load, where planning was ~45% of the
 * ledger statement's time (docs/performance.md). `name` must belong to this one SQL text. Rows
 * come back for every kind of statement (UPDATE … RETURNING too); errors are the driver's own
 * (the checks below read both shapes). Outside a transaction (`dataSource.manager`) it runs on a
 * pooled connection, named too. A process keeps its statements until it exits: after a migration
 * that changes the columns they return, restart the processes started before it (docs/operations.md).
 */
export async function preparedQuery<T>(m: EntityManager, name: string, sql: string, params: unknown[]): Promise<T[]> {
  const runner = m.queryRunner;
  if (runner?.isReleased) return updateReturning<T>(m, sql, params);
  const client = runner ? ((await runner.connect()) as PoolClient) : (m.connection.driver as PostgresDriver).master;
  return (await client.query({ name, text: sql, values: params })).rows as T[];
}

const sqlState = (err: unknown) => {
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  return e.driverError?.code ?? e.code;
};

/** A PostgreSQL unique violation (23505), raw or wrapped by TypeORM. */
export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === '23505';
}

/** An operator's create that lost a race on a unique index to another request's: 1000 "already exists" (nothing changed); any other error as it is. */
export function alreadyExists(err: unknown): unknown {
  return isUniqueViolation(err) ? new BusinessError(ErrorCode.VALIDATION, 'error.already_exists') : err;
}

/**
 * Runs a request that carries a client id. When a concurrent retry with the same id won the race
 * (its row came first and the unique index refused this one, or its commit made a check refuse
 * this one), answers as a retry does, from what that retry created (`prior`), instead of an
 * error: one effect, the same answer.
 */
export async function orConcurrentRetry<T>(create: () => Promise<T>, prior: () => Promise<T | null | undefined>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    // Also a refusal: a check that the first request's commit changed (the last of a capacity) refuses the retry waiting behind it.
    if (!isUniqueViolation(err) && !(err instanceof BusinessError)) throw err;
    const answer = await prior();
    if (answer === null || answer === undefined) throw err;
    return answer;
  }
}

/** A PostgreSQL check violation (23514), raw or wrapped by TypeORM. */
export function isCheckViolation(err: unknown): boolean {
  return sqlState(err) === '23514';
}

/** Array elements that need no quotes: amounts, ids, account and status names. */
const BARE = /^[\w.:-]+$/;

/**
 * A PostgreSQL array literal for one `$n::type[]` parameter of a bulk statement (`unnest`): built
 * in one pass instead of the driver quoting each element on its own (the projector sends tens of
 * thousands of elements a second). Numbers, bigints and plain words go in bare; other strings are
 * quoted and escaped; null is NULL.
 */
export function arrayLiteral(values: ReadonlyArray<string | number | bigint | null | undefined>): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'string') {
      // The ledger's empty memo on most rows, then plain words, then anything else quoted.
      if (v.length === 0) out += '""';
      else if (BARE.test(v) && (v.length !== 4 || v.toUpperCase() !== 'NULL')) out += v;
      else out += `"${v.replace(/["\\]/g, '\\$&')}"`;
    } else out += String(v);
  }
  return out + '}';
}

/** Characters COPY's text format escapes (a backslash, and the separators of columns and rows). */
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPE: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One value in COPY's text format: `\N` for NULL, a string with its backslash, tab, newline and carriage return escaped. */
export function copyField(value: string | number | bigint | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value !== 'string') return String(value);
  return COPY_SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPE[c]) : value;
}

/** CopyDone: the end of one COPY's rows. */
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);

/** One table's rows for copyIn: `COPY table (columns) FROM STDIN` and its rows in COPY's text format. */
export interface CopyPart {
  statement: string;
  /** Fields joined by tabs, each row ending in a newline, values from copyField. */
  rows: string;
}

/**
 * Inserts each part's rows by `COPY … FROM STDIN` (text format) on this connection, inside its
 * transaction, all in one round trip: one simple query holds the parts' COPY statements, and their
 * rows (CopyData, CopyDone per part) follow it in the same write, without waiting for each
 * CopyInResponse; PostgreSQL reads each part's rows when it reaches its statement and answers
 * once (ReadyForQuery) at the end. After an error it skips the rest of the query and ignores the
 * rows still coming, as the protocol says, and this rejects (the transaction is then aborted).
 * COPY is PostgreSQL's bulk path: each field parsed once, heap pages filled whole. For the
 * projector's rows it cost about half of the same rows as an `INSERT … SELECT FROM
 * unnest($n::type[])`, whose array literals are parsed whole first (docs/performance.md,
 * "Sixteenth sitting"). Triggers, constraints and defaults apply as for an INSERT.
 */
export function copyIn(client: PoolClient, parts: CopyPart[]): Promise<void> {
  if (!parts.length) return Promise.resolve();
  const text = parts.map((p) => p.statement).join('; ');
  // Each part's CopyData (type, length, rows) and CopyDone, encoded straight into one buffer for one write.
  const sizes = parts.map((p) => Buffer.byteLength(p.rows, 'utf8'));
  const payload = Buffer.allocUnsafe(sizes.reduce((sum, n) => sum + n + 5 + COPY_DONE.length, 0));
  let at = 0;
  parts.forEach((p, i) => {
    payload[at] = 0x64; // CopyData
    payload.writeUInt32BE(sizes[i] + 4, at + 1);
    at += 5 + payload.write(p.rows, at + 5, 'utf8');
    at += COPY_DONE.copy(payload, at);
  });
  return new Promise((resolve, reject) => {
    let failed: unknown;
    const query = {
      submit(connection: { query(text: string): void; stream: { write(b: Buffer): boolean } }): void {
        connection.query(text);
        connection.stream.write(payload);
      },
      handleCopyInResponse: () => undefined,
      handleCommandComplete: () => undefined,
      // Not expected of COPY statements; answered rather than left to throw inside pg's socket handler.
      handleRowDescription: () => undefined,
      handleDataRow: () => undefined,
      handleEmptyQuery: () => undefined,
      handleError(err: unknown): void {
        this.callback();
        failed = err;
        reject(err);
      },
      handleReadyForQuery(): void {
        this.callback();
        if (failed === undefined) resolve();
      },
      // pg replaces it with its query_timeout wrapper when that is configured (it clears the timer).
      callback: () => undefined,
    };
    (client as unknown as { query(q: typeof query): void }).query(query);
  });
}

/**
 * TypeORM find options for a read that, inside `held`'s transaction, holds the rows it reads (FOR
 * SHARE) until that transaction ends, so an operator's change to them waits for it or is what it
 * reads; none for a read outside a transaction.
 */
export function sharedIn(held?: EntityManager): { lock?: { mode: 'pessimistic_read' } } {
  return held ? { lock: { mode: 'pessimistic_read' } } : {};
}
