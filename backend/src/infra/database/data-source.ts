import 'reflect-metadata';
import { DataSource, DataSourceOptions } from 'typeorm';
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
    extra: { max: Number(process.env.DB_POOL_SIZE ?? 20) },
  };
}

/** For the TypeORM CLI (`npm run migration:generate -w backend`). */
export default new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/kestrel'));
