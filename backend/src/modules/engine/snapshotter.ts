import { DataSource } from 'typeorm';
import { units } from '../../infra/money';
import { ownedBySequencer, accountKey, type Balance } from './sequencer/balances';
import { Sequencer, SequencerSnapshot, stateHash } from './sequencer/sequencer';

const KEEP = 3;

/**
 * Snapshots of the sequencer's whole state, and the genesis one: on a database that has never
 * run the sequencer, the trade-account balances it takes over are read from the balance table
 * (all of them, once) and stored as the snapshot at batch 0, so recovery always starts from a
 * snapshot and a replay of the journal.
 */
export class Snapshotter {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores `state` (from `Sequencer.snapshot()`): its canonical JSON text, and that text's hash.
   * Text, not jsonb: PostgreSQL keeps it as it is (lz4-compressed) instead of parsing megabytes of
   * JSON, and it comes back with its keys in the same order.
   */
  async save(state: SequencerSnapshot): Promise<void> {
    const text = JSON.stringify(state);
    await this.dataSource.query('INSERT INTO sequencer_snapshots (seq, state, hash) VALUES ($1, $2, $3) ON CONFLICT (seq) DO NOTHING', [
      state.seq,
      text,
      stateHash(state, text),
    ]);
    await this.dataSource.query(
      'DELETE FROM sequencer_snapshots WHERE seq > 0 AND seq NOT IN (SELECT seq FROM sequencer_snapshots ORDER BY seq DESC LIMIT $1)',
      [KEEP],
    );
  }

  /** The newest snapshot at or below `seq` (the projector's watermark). */
  async latest(seq: number): Promise<SequencerSnapshot | undefined> {
    const [row] = await this.dataSource.query('SELECT state FROM sequencer_snapshots WHERE seq <= $1 ORDER BY seq DESC LIMIT 1', [seq]);
    return row ? (JSON.parse(row.state) as SequencerSnapshot) : undefined;
  }

  /** Batch 0: the balances of the sequencer's accounts as the database holds them, and the next order id. */
  async genesis(): Promise<Sequencer> {
    const rows: Array<{ owner_type: 'user' | 'system'; owner_id: number; account_type: string; currency_id: number; available: string; frozen: string }> =
      await this.dataSource.query(`SELECT owner_type, owner_id, account_type, currency_id, available::text, frozen::text FROM balances`);
    const initial: Array<[string, Balance]> = rows
      .filter((r) => ownedBySequencer({ accountType: r.account_type }))
      .map((r) => [
        accountKey({ ownerType: r.owner_type, ownerId: r.owner_id, accountType: r.account_type, currencyId: r.currency_id }),
        { available: units(r.available), frozen: units(r.frozen) },
      ]);
    const [{ next }] = await this.dataSource.query(
      `SELECT GREATEST((SELECT COALESCE(MAX(id), 0) FROM orders), (SELECT last_value FROM order_ids)) + 1 AS next`,
    );
    const s = Sequencer.restore({
      v: 1,
      seq: 0,
      ts: 0,
      nextOrderId: Number(next),
      markets: [],
      books: [],
      lastTradePrices: [],
      orders: [],
      balances: initial.map(([k, b]) => [k, String(b.available), String(b.frozen)]),
      dedup: [],
    });
    await this.save(s.snapshot());
    return s;
  }
}
