import type { DataSource, QueryRunner } from 'typeorm';

/**
 * Runs `body` with a transaction of its own open on a connection of its own, as another request's
 * is while it runs: what `body` writes there stays uncommitted (holding its locks) until `body`
 * commits it; rolled back and the connection given back however `body` ends.
 */
export async function inOpenTransaction(ds: DataSource, body: (other: QueryRunner) => Promise<void>): Promise<void> {
  const other = ds.createQueryRunner();
  await other.connect();
  await other.startTransaction();
  try {
    await body(other);
  } finally {
    if (other.isTransactionActive) await other.rollbackTransaction();
    await other.release();
  }
}
