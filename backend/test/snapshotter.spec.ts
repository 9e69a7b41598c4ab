import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/infra/database/data-source';
import { migrate } from '../src/infra/database/migrate';
import { Snapshotter } from '../src/modules/engine/snapshotter';
import { SequencerSnapshot, stateHash } from '../src/modules/engine/sequencer/sequencer';
import { createDatabase } from './support/test-app';

const BTC = 1;
const USDT = 3;

/** A snapshot with nothing in it but its position and one balance (what tells two apart). */
const state = (seq: number, mark = '1'): SequencerSnapshot => ({
  v: 1,
  seq,
  ts: 1_700_000_000_000 + seq,
  nextOrderId: 1 + seq,
  markets: [],
  books: [],
  lastTradePrices: [],
  orders: [],
  balances: [[`user:7:coin:${USDT}`, mark, '0']],
  dedup: [],
});

/**
 * The snapshotter (recovery's starting point, docs/architecture.md "Spot core v2") on real
 * PostgreSQL: which snapshot recovery starts from, which ones are kept, and the genesis snapshot
 * that hands the database's trade-account balances to the sequencer once.
 */
describe('Snapshotter', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let ds: DataSource;
  let snapshots: Snapshotter;

  beforeAll(async () => {
    db = await createDatabase();
    ds = new DataSource({ ...dataSourceOptions(db.url), logging: false });
    await ds.initialize();
    await migrate(ds);
    snapshots = new Snapshotter(ds);
  });

  afterAll(async () => {
    await ds.destroy();
    await db.drop();
  });

  it('genesis takes only the sequencer-owned balances, and order ids after every one in use', async () => {
    await ds.transaction(async (m) => {
      // As the projector would (the guard refuses any other writer of the sequencer's accounts).
      await m.query(`SET LOCAL kestrel.writer = 'projector'`);
      await m.query(
        `INSERT INTO balances (owner_type, owner_id, account_type, currency_id, available, frozen) VALUES
           ('user', 7, 'coin', $1, 1.5, 0.25), ('user', 7, 'coin', $2, 1000, 0),
           ('user', 7, 'lever', $2, 300, 0), ('system', 0, 'spot-fee', $2, 2.5, 0),
           ('system', 0, 'desk', $1, 3, 0), ('system', 0, 'treasury', $2, 900000, 0)`,
        [BTC, USDT],
      );
    });
    await ds.query(`SELECT setval('order_ids', 41)`);
    const seqr = await snapshots.genesis();
    const genesis = seqr.snapshot();
    expect(genesis.seq).toBe(0);
    expect(genesis.nextOrderId).toBe(42);
    expect(new Map(genesis.balances.map(([k, a, f]) => [k, [a, f]]))).toEqual(
      new Map([
        [`user:7:coin:${BTC}`, ['1500000000000000000', '250000000000000000']],
        [`user:7:coin:${USDT}`, ['1000000000000000000000', '0']],
        [`system:0:spot-fee:${USDT}`, ['2500000000000000000', '0']],
        [`system:0:desk:${BTC}`, ['3000000000000000000', '0']],
      ]),
    );
    // Stored as batch 0, with its hash: recovery on this database starts from it.
    const [row] = await ds.query('SELECT hash FROM sequencer_snapshots WHERE seq = 0');
    expect(row.hash).toBe(stateHash(genesis));
    expect(await snapshots.latest(0)).toEqual(genesis);
  });

  it('recovery starts from the newest snapshot at or below the watermark, never one past it', async () => {
    await snapshots.save(state(10));
    await snapshots.save(state(20));
    expect((await snapshots.latest(9))?.seq).toBe(0);
    expect((await snapshots.latest(10))?.seq).toBe(10);
    expect((await snapshots.latest(19))?.seq).toBe(10);
    expect((await snapshots.latest(1_000))?.seq).toBe(20);
  });

  it('a snapshot saved twice keeps the first; the newest three are kept, and genesis', async () => {
    await snapshots.save(state(20, '999')); // a second replica's copy of batch 20: the first stays
    expect((await snapshots.latest(20))?.balances).toEqual(state(20).balances);
    await snapshots.save(state(30));
    await snapshots.save(state(40));
    const kept: Array<{ seq: string }> = await ds.query('SELECT seq FROM sequencer_snapshots ORDER BY seq');
    expect(kept.map((r) => Number(r.seq))).toEqual([0, 20, 30, 40]);
    // Below the oldest kept one, recovery replays from genesis.
    expect((await snapshots.latest(15))?.seq).toBe(0);
  });
});
