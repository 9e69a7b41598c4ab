import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/infra/database/data-source';
import { migrate } from '../src/infra/database/migrate';
import { LedgerCode } from '../src/modules/ledger/ledger-codes';
import { type AppliedBatch, PROJECTOR_APPLICATION, ProjectionBlocked, ProjectionConflict, Projector } from '../src/modules/engine/projector';
import { Sequencer } from '../src/modules/engine/sequencer/sequencer';
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

describe('the first projection on a fresh database: two projectors of the same batches, one commits', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let ds: DataSource;

  beforeEach(async () => {
    db = await createDatabase();
    ds = new DataSource({ ...dataSourceOptions(db.url), extra: { max: 4 } });
    await ds.initialize();
    await migrate(ds);
  });
  afterEach(async () => {
    if (ds.isInitialized) await ds.destroy();
    await db.drop();
  });

  /** The first batch: a deposit of 5 USDT to user 1 (its trade account and the external account). */
  function firstBatch(): AppliedBatch {
    const seqr = new Sequencer();
    seqr.beginBatch(1, 1_700_000_000_000);
    const outcome = seqr.apply({
      t: 'post',
      commandId: 'dep-1',
      refType: 'deposit',
      refId: '1',
      actor: 'test',
      legs: [
        { ownerType: 'user', ownerId: 1, accountType: 'coin', currencyId: 3, code: LedgerCode.DepositIncrease, available: '5' },
        { ownerType: 'system', ownerId: 0, accountType: 'external', currencyId: 3, code: LedgerCode.DepositIncrease, available: '-5' },
      ],
    });
    expect(outcome.code).toBe('OK');
    return { seq: 1, ts: 1_700_000_000_000, outcomes: [outcome] };
  }

  /** A projector whose next projection stops once it has read the watermark (and locked it, if there is a row), until `release`. */
  function held(): { projector: Projector; release: () => void; reached: Promise<void> } {
    const projector = new Projector(ds, { byIdOrUndefined: () => undefined });
    const internals = projector as unknown as { databaseAccounts: (...args: unknown[]) => Promise<unknown> };
    const real = internals.databaseAccounts.bind(projector);
    let release!: () => void;
    let reached!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const at = new Promise<void>((r) => (reached = r));
    jest.spyOn(internals, 'databaseAccounts').mockImplementationOnce(async (...args) => {
      reached();
      await gate;
      return real(...args);
    });
    return { projector, release, reached: at };
  }

  /** What was written: the watermark, the ledger's lines and the external account's balance (−5 once). */
  const state = async () =>
    (
      await ds.query(
        `SELECT (SELECT seq::int FROM sequencer_projection WHERE id = 1) AS seq, (SELECT count(*)::int FROM ledger_entries) AS entries,
                (SELECT trim_scale(available)::text FROM balances WHERE owner_type = 'system' AND account_type = 'external' AND currency_id = 3) AS external`,
      )
    )[0];

  it('a migrated database has the watermark row (nothing projected), so the second waits for the first’s lock and is refused', async () => {
    expect(await ds.query('SELECT id, seq::int, ledger_id FROM sequencer_projection')).toEqual([{ id: 1, seq: 0, ledger_id: null }]);
    expect(await new Projector(ds, { byIdOrUndefined: () => undefined }).watermark()).toBe(0);
    const first = held();
    const one = first.projector.project([firstBatch()]);
    await first.reached;
    const two = new Projector(ds, { byIdOrUndefined: () => undefined }).project([firstBatch()]).catch((err: unknown) => err);
    // The second waits for the row the first holds.
    await waitFor(
      async () =>
        (await ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`))[0].n === 1,
    );
    first.release();
    await expect(one).resolves.toEqual({ seq: 1 });
    const refused = await two;
    expect(refused).toBeInstanceOf(ProjectionConflict);
    expect((refused as ProjectionConflict).watermark).toBe(1);
    expect(await state()).toEqual({ seq: 1, entries: 2, external: '-5' });
  });

  it('without the row (nothing to lock), the projection that writes the watermark second changes nothing: refused, rolled back (regression: both committed)', async () => {
    await ds.query('DELETE FROM sequencer_projection');
    const first = held();
    const one = first.projector.project([firstBatch()]).catch((err: unknown) => err);
    await first.reached;
    // The second goes all the way through while the first is held open.
    await expect(new Projector(ds, { byIdOrUndefined: () => undefined }).project([firstBatch()])).resolves.toEqual({ seq: 1 });
    first.release();
    const refused = await one;
    expect(refused).toBeInstanceOf(ProjectionConflict);
    expect((refused as ProjectionConflict).watermark).toBe(1);
    expect(await state()).toEqual({ seq: 1, entries: 2, external: '-5' });
  });
});
