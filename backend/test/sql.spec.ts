import { Client } from 'pg';
import { arrayLiteral, copyField, copyIn } from '../src/infra/database/sql';
import { SERVER_URL, withDatabase } from './support/test-app';

describe('arrayLiteral (real PostgreSQL)', () => {
  it('round-trips every kind of element the projector sends, user text included', async () => {
    const c = new Client({ connectionString: withDatabase(SERVER_URL, 'postgres') });
    await c.connect();
    try {
      const text = ['a b', 'x"y', 'back\\slash', '{brace}', 'comma,', 'null', 'NULL', '', ' ', 'user:1', '-0.5', 'é ü 中', null];
      const [t] = (await c.query('SELECT $1::text[] AS v', [arrayLiteral(text)])).rows;
      expect(t.v).toEqual(text);
      const [n] = (await c.query('SELECT $1::numeric[]::text[] AS v', [arrayLiteral(['-0.000000000000000001', '123456789012345678.5', 7, 10n ** 20n, null])]))
        .rows;
      expect(n.v).toEqual(['-0.000000000000000001', '123456789012345678.5', '7', '100000000000000000000', null]);
      expect((await c.query('SELECT cardinality($1::int[]) AS n', [arrayLiteral([])])).rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
  });
});

describe('copyIn and copyField (real PostgreSQL)', () => {
  it('round-trips user text, numbers and NULL into several tables in one round trip, a large part included; a refused row aborts it and the connection goes on', async () => {
    const c = new Client({ connectionString: withDatabase(SERVER_URL, 'postgres') });
    await c.connect();
    try {
      await c.query('BEGIN');
      await c.query('CREATE TEMP TABLE copy_probe (n serial, t text, v numeric(36,18) NOT NULL, at timestamptz) ON COMMIT DROP');
      await c.query('CREATE TEMP TABLE copy_many (n int NOT NULL, pad text) ON COMMIT DROP');
      const text = ['tab\there', 'new\nline', 'carriage\rreturn', 'back\\slash', '\\N', 'null', '', 'é ü 中', null];
      const at = new Date(1795660089860).toISOString();
      const rows = text.map((t, i) => `${copyField(t)}\t${copyField(i % 2 ? '-0.000000000000000001' : 10n ** 17n + 1n)}\t${at}\n`).join('');
      // Far more than a socket buffer takes at once: the rest is written as PostgreSQL reads.
      const many = Array.from({ length: 40_000 }, (_, i) => `${i}\t${'x'.repeat(100)}\n`).join('');
      const { processID } = c as unknown as { processID: number };
      await copyIn(c as never, [
        { statement: 'COPY copy_probe (t, v, at) FROM STDIN', rows },
        { statement: 'COPY copy_many (n, pad) FROM STDIN', rows: many },
      ]);
      const back = (await c.query('SELECT t, v::text AS v, at FROM copy_probe ORDER BY n')).rows;
      expect(back.map((r) => r.t)).toEqual(text);
      expect(back[0].v).toBe('100000000000000001.000000000000000000');
      expect(back[1].v).toBe('-0.000000000000000001');
      expect(back[0].at.getTime()).toBe(1795660089860);
      expect((await c.query('SELECT count(*)::int AS n, sum(n)::bigint AS s FROM copy_many')).rows[0]).toEqual({ n: 40_000, s: String((39_999 * 40_000) / 2) });
      // A NULL where the column refuses one, in the first part: the COPY rejects; the second part's rows are
      // skipped (PostgreSQL ignores them), nothing of either stays, the transaction is aborted, the session goes on.
      await expect(
        copyIn(c as never, [
          { statement: 'COPY copy_probe (t, v) FROM STDIN', rows: `x\t${copyField(null)}\n` },
          { statement: 'COPY copy_many (n, pad) FROM STDIN', rows: many },
        ]),
      ).rejects.toThrow(/null value/);
      await expect(c.query('SELECT 1')).rejects.toThrow(/aborted/);
      await c.query('ROLLBACK');
      expect((await c.query('SELECT 1 AS one, pg_backend_pid() AS pid')).rows[0]).toEqual({ one: 1, pid: processID });
      expect((await c.query("SELECT to_regclass('pg_temp.copy_many') AS t")).rows[0].t).toBeNull();
    } finally {
      await c.end();
    }
  });
});
