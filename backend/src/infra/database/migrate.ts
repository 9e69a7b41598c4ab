import { DataSource } from 'typeorm';

/** Runs pending migrations under a Postgres advisory lock, so replicas starting together migrate once. */
export async function migrate(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', ['kestrel:migrations']);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', ['kestrel:migrations']).catch(() => undefined);
    await runner.release();
  }
}
