import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/infra/database/data-source';
import { migrate } from '../src/infra/database/migrate';
import { createDatabase } from './support/test-app';

describe('migrations', () => {
  it('a fresh database migrated to the latest version matches the entities (no drift)', async () => {
    const db = await createDatabase();
    const ds = new DataSource(dataSourceOptions(db.url));
    try {
      await ds.initialize();
      await migrate(ds);
      await migrate(ds); // a second start finds nothing to do
      const pending = await ds.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
