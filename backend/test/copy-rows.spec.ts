import { DataSource } from 'typeorm';
import { copyField, copyRows } from '../src/infra/database/sql';
import { createDatabase } from './support/test-app';

/** The projector's ledger rows go in with COPY: text must come back exactly as it went in. */
describe('copyRows / copyField (COPY text format, real PostgreSQL)', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createDatabase();
    ds = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    await ds.query('CREATE TABLE t (id bigserial PRIMARY KEY, memo varchar(200) NOT NULL, amount numeric(36,18) NOT NULL CHECK (amount >= 0))');
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const awkward = ['', 'plain', 'tab\there', 'line\nbreak', 'carriage\rreturn', 'back\\slash', '\\N', '\\.', 'quote " and \' ', 'ünïcødé 中文 🚀', '\\t literal'];

  it('writes every field back exactly, in the order given (ids follow the lines)', async () => {
    await ds.transaction((m) => copyRows(m, 'COPY t (memo, amount) FROM STDIN', awkward.map((s, i) => `${copyField(s)}\t${i}.000000000000000001\n`).join('')));
    const rows: Array<{ memo: string; amount: string }> = await ds.query('SELECT memo, amount::text AS amount FROM t ORDER BY id');
    expect(rows.map((r) => r.memo)).toEqual(awkward);
    expect(rows.map((r) => r.amount)).toEqual(awkward.map((_, i) => `${i}.000000000000000001`));
  });

  it('a refused row rejects with the server error and the transaction writes nothing', async () => {
    const before = await ds.query('SELECT COUNT(*)::int AS n FROM t');
    await expect(ds.transaction((m) => copyRows(m, 'COPY t (memo, amount) FROM STDIN', 'ok\t1\nbad\t-1\n'))).rejects.toThrow(/check constraint/);
    expect(await ds.query('SELECT COUNT(*)::int AS n FROM t')).toEqual(before);
  });

  it('needs a transaction (the rows belong to one)', async () => {
    await expect(copyRows(ds.manager, 'COPY t (memo, amount) FROM STDIN', 'x\t1\n')).rejects.toThrow(/transaction/);
  });
});
