import { Client } from 'pg';
import { arrayLiteral } from '../src/infra/database/sql';
import { SERVER_URL, withDatabase } from './support/test-app';

describe('arrayLiteral (real PostgreSQL)', () => {
  it('round-trips every kind of element the projector sends, user text included', async () => {
    const c = new Client({ connectionString: withDatabase(SERVER_URL, 'postgres') });
    await c.connect();
    try {
      const text = ['a b', 'x"y', 'back\\slash', '{brace}', 'comma,', 'null', 'NULL', '', ' ', 'user:1', '-0.5', 'é ü 中', null];
      const [t] = (await c.query('SELECT $1::text[] AS v', [arrayLiteral(text)])).rows;
      expect(t.v).toEqual(text);
      const [n] = (await c.query('SELECT $1::numeric[]::text[] AS v', [arrayLiteral(['-0.000000000000000001', '123456789012345678.5', 7, 10n ** 20n, null])])).rows;
      expect(n.v).toEqual(['-0.000000000000000001', '123456789012345678.5', '7', '100000000000000000000', null]);
      expect((await c.query('SELECT cardinality($1::int[]) AS n', [arrayLiteral([])])).rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
  });
});
