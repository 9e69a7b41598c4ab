import 'reflect-metadata';
import { DataSource, DataSourceOptions } from 'typeorm';
import { intBetween } from '../config/config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** Options shared by the app, the tests and the TypeORM CLI. Schema changes go through migrations only. */
export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    // A connection, once opened, is kept (DB_POOL_IDLE_MS=0: never closed for being idle; node-postgres
    // closes them after 10 s by default). A burst of reads opens up to DB_POOL_SIZE connections and
    // they went idle together; closing them together 10 s later woke as many PostgreSQL backends at
    // once to exit, each taking ~20 ms of CPU, and the sequencer's thread waited 80–170 ms for a
    // core (docs/performance.md, thirty-first sitting).
    extra: { max: intBetween('DB_POOL_SIZE', 20, 1, 1000), idleTimeoutMillis: intBetween('DB_POOL_IDLE_MS', 0, 0, 86_400_000) },
  };
}

/** For the TypeORM CLI (`npm run migration:generate -w backend`). */
export default new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/kestrel'));
