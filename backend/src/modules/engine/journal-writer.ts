import { DataSource } from 'typeorm';
import { OwnConnection } from '../../infra/database/own-connection';
import { FencedError } from './engine-lease';
import type { SeqCommand } from './sequencer/commands';

export interface JournalBatch {
  seq: number;
  ts: number;
  commands: SeqCommand[];
}

/**
 * A journal row's commands as JSON text, whichever column holds them: `commands_text` (written as
 * text: PostgreSQL neither parses nor prints it on the answers' path) or, in rows written before
 * migration JournalText, the jsonb `commands`. Every reader of the journal selects this and parses it.
 */
export const JOURNAL_COMMANDS = 'COALESCE(commands_text, commands::text)';

/**
 * The sequencer's only synchronous write (DESIGN §1.4): one row per group commit, in one round
 * trip, committed before anything of the batch is applied, answered or pushed. The primary key
 * refuses a second row with the same sequence number, and with a fencing token the row is only
 * written while that token is the lease's current one (read under a share lock, so a take-over
 * waits for this write and fences every later one): two writers can never both append.
 */
export class JournalWriter {
  /**
   * The fenced appends' connection, outside the pool: a write never waits there behind the requests'
   * reads (with every pooled connection busy, each answer waited for one), and its statement is named
   * once for good (parsed and planned once: at ~1,000 commits a second planning was ~10 % of
   * PostgreSQL's CPU per order, bench:core at BENCH_RATE=2500). No statement bound: a write that
   * ended on a timeout would be of unknown fate, and the sequencer stops for that (`GroupCommit`).
   */
  private readonly appends: OwnConnection;

  constructor(private readonly dataSource: DataSource) {
    this.appends = new OwnConnection(dataSource, { applicationName: 'kestrel-journal', connectMs: 5000 });
  }

  async append(batch: JournalBatch, token?: number): Promise<void> {
    if (token === undefined) {
      await this.dataSource.query('INSERT INTO sequencer_journal (seq, ts, commands_text) VALUES ($1, $2, $3)', [
        batch.seq,
        batch.ts,
        JSON.stringify(batch.commands),
      ]);
      return;
    }
    const { rows } = await this.appends.query(
      `INSERT INTO sequencer_journal (seq, ts, commands_text, token)
       SELECT $1, $2, $3, token FROM engine_lease WHERE name = 'engine' AND token = $4 FOR SHARE
       RETURNING seq`,
      [batch.seq, batch.ts, JSON.stringify(batch.commands), token],
      'kestrel-journal-append',
    );
    if (!rows.length) throw new FencedError(token);
  }

  /** Opens the appends' connection (before the sequencer takes commands: a failure there is a failed take-over, retried). */
  open(): Promise<void> {
    return this.appends.open();
  }

  /** Closes the appends' connection (shutdown). */
  close(): Promise<void> {
    return this.appends.close();
  }

  async head(): Promise<number> {
    const [r] = await this.dataSource.query('SELECT COALESCE(MAX(seq), 0)::bigint AS seq FROM sequencer_journal');
    return Number(r.seq);
  }

  /** Batches after `seq`, in order, at most `limit` of them. */
  async after(seq: number, limit: number): Promise<JournalBatch[]> {
    const rows: Array<{ seq: string; ts: string; commands: string }> = await this.dataSource.query(
      `SELECT seq, ts, ${JOURNAL_COMMANDS} AS commands FROM sequencer_journal WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [seq, limit],
    );
    return rows.map((r) => ({ seq: Number(r.seq), ts: Number(r.ts), commands: JSON.parse(r.commands) as SeqCommand[] }));
  }
}
