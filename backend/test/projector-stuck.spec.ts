import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/infra/database/data-source';
import { migrate } from '../src/infra/database/migrate';
import { PROJECTOR_APPLICATION, ProjectionBlocked, Projector } from '../src/modules/engine/projector';
import { createDatabase } from './support/test-app';

async function waitFor(ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 10));
}

/** The lease of this test: a projection transaction open longer than this is a stuck one. */
const LEASE_MS = 600;

describe('a projection stuck in COPY (its engine paused past the lease) is ended by the next projection', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let ds: DataSource;
  let holder: Client;
  const processId = (c: Client) => (c as unknown as { processID: number }).processID;
  const alive = async (c: Client) => (await ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1`, [processId(c)]))[0].n === 1;

  beforeEach(async () => {
    db = await createDatabase();
    ds = new DataSource({ ...dataSourceOptions(db.url), extra: { max: 2, application_name: PROJECTOR_APPLICATION } });
    await ds.initialize();
    await migrate(ds);
    await ds.query('INSERT INTO sequencer_projection (id, seq) VALUES (1, 0)');
    // An earlier holder's projection: the watermark row locked.
    holder = new Client({ connectionString: db.url, application_name: PROJECTOR_APPLICATION });
    await holder.connect();
    holder.on('error', () => undefined);
  });
  afterEach(async () => {
    await holder.end().catch(() => undefined);
    if (ds.isInitialized) await ds.destroy();
    await db.drop();
  });

  /** The new holder's projector, as the replica runs it: a blocked attempt is tried again. */
  async function project(ts: number): Promise<{ projector: Projector; blocked: ProjectionBlocked[] }> {
    const projector = new Projector(ds, { byIdOrUndefined: () => undefined }, LEASE_MS);
    const blocked: ProjectionBlocked[] = [];
    for (;;) {
      try {
        await projector.project([{ seq: 1, ts, outcomes: [] }]);
        return { projector, blocked };
      } catch (err) {
        if (!(err instanceof ProjectionBlocked)) throw err;
        blocked.push(err);
      }
    }
  }

  it('the next projector waits in short steps, ends the stuck session once its transaction is older than the lease, and projects', async () => {
    const started = Date.now(); // before the stuck transaction begins: it is ended no sooner than the lease after this
    await holder.query(`BEGIN; SET LOCAL kestrel.writer = 'projector'; SELECT seq FROM sequencer_projection WHERE id = 1 FOR UPDATE`);
    // A COPY whose first row is sent half, and nothing more, as a process stopped mid-stream leaves it (pg's custom query interface).
    void holder.query({
      submit: (connection: { query(text: string): void }) => connection.query('COPY trades (market_id, trade_id) FROM STDIN'),
      handleCopyInResponse: (connection: { sendCopyFromChunk(b: Buffer): void }) => connection.sendCopyFromChunk(Buffer.from('1\t')),
      handleError: () => undefined,
      handleReadyForQuery: () => undefined,
      handleCommandComplete: () => undefined,
    } as never);
    await waitFor(
      async () => (await ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'COPY trades%' AND state = 'active'`))[0].n === 1,
    );

    const { projector, blocked } = await project(started);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(LEASE_MS);
    expect(waited).toBeLessThan(LEASE_MS + 2000);
    expect(blocked.length).toBeGreaterThanOrEqual(2);
    expect(blocked.map((b) => b.ended).reduce((a, b) => a + b)).toBe(1);
    expect(await projector.watermark()).toBe(1);
    // The stuck session is gone, and nothing of its COPY stayed.
    expect(await alive(holder)).toBe(false);
    expect((await ds.query('SELECT count(*)::int AS n FROM trades'))[0].n).toBe(0);
  }, 30_000);

  it('a projection holding the watermark past the lease while it waits for a lock is left alone: the next one waits for it', async () => {
    const other = new Client({ connectionString: db.url });
    await other.connect();
    try {
      // Someone else holds a lock the earlier projection needs (as a posting holds a balance row).
      await other.query('BEGIN; LOCK TABLE trades IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      await holder.query(`BEGIN; SET LOCAL kestrel.writer = 'projector'; SELECT seq FROM sequencer_projection WHERE id = 1 FOR UPDATE`);
      const waiting = holder.query('SELECT count(*) FROM trades').then(() => holder.query('ROLLBACK'));
      setTimeout(() => void other.query('COMMIT'), 2 * LEASE_MS);

      const { projector, blocked } = await project(started);
      await waiting;
      expect(Date.now() - started).toBeGreaterThanOrEqual(2 * LEASE_MS);
      expect(blocked.length).toBeGreaterThanOrEqual(2);
      expect(blocked.every((b) => b.ended === 0)).toBe(true);
      expect(await alive(holder)).toBe(true);
      expect(await projector.watermark()).toBe(1);
    } finally {
      await other.end();
    }
  }, 30_000);
});
