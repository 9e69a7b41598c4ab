import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { DataSource } from 'typeorm';
import { OwnConnection } from '../../infra/database/own-connection';

const NAME = 'engine';

/**
 * The sequencer's lease with a fencing token (DESIGN §3). One row in `engine_lease`: the holder
 * renews its expiry well before it passes; a standby takes the row only after it has expired, and
 * the token rises by one with every new holder. The journal writer checks the token in the same
 * statement as its insert (`JournalWriter.append`), under a share lock on the lease row, so a take-over
 * waits for a write in flight and every later write of the old holder is refused: an old owner that
 * was paused (SIGSTOP) or cut off can never write after a new one took over. Expiry uses the
 * database's clock only, so the processes' clocks need not agree. (A session advisory lock alone
 * would not do: a paused process keeps its session, and with it the lock.) Its statements run on a
 * connection of its own, never queued behind the requests' in the pool: a renewal that waited
 * there past the expiry would make the sequencer step down under a burst of reads.
 */
export class EngineLease {
  /** This process: host, pid and a random part (a restarted process is a new holder). */
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private token?: number;
  /** Local monotonic time until which this process may act as the holder without a renewal. */
  private validUntil = 0;
  private readonly db: OwnConnection;

  constructor(
    dataSource: DataSource,
    readonly ttlMs: number,
  ) {
    // A statement that takes longer than the lease is of no use to it (and its connection is replaced).
    this.db = new OwnConnection(dataSource, { applicationName: 'kestrel-lease', connectMs: Math.max(ttlMs, 5000), statementMs: ttlMs });
  }

  /** The fencing token while held (checked again by every journal write). */
  get current(): number | undefined {
    return this.token !== undefined && performance.now() < this.validUntil ? this.token : undefined;
  }

  /** Takes the lease if nobody holds it or the holder's expiry has passed; the new token, or undefined. */
  async tryAcquire(): Promise<number | undefined> {
    const sent = performance.now();
    const { rows } = await this.db.query<{ token: string }>(
      `INSERT INTO engine_lease (name, holder, token, expires_at) VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, token = engine_lease.token + 1, expires_at = EXCLUDED.expires_at, acquired_at = now()
       WHERE engine_lease.expires_at < now()
       RETURNING token`,
      [NAME, this.holder, this.ttlMs],
    );
    if (!rows.length) return undefined;
    this.token = Number(rows[0].token);
    this.validUntil = sent + this.ttlMs;
    return this.token;
  }

  /** Extends the expiry; false when the lease is no longer ours (a new holder took it). */
  async renew(): Promise<boolean> {
    if (this.token === undefined) return false;
    const sent = performance.now();
    const { rowCount } = await this.db.query(`UPDATE engine_lease SET expires_at = now() + $3 * interval '1 millisecond' WHERE name = $1 AND token = $2`, [
      NAME,
      this.token,
      this.ttlMs,
    ]);
    if (!rowCount) {
      this.token = undefined;
      return false;
    }
    this.validUntil = sent + this.ttlMs;
    return true;
  }

  /** Gives the lease up at once (a clean shutdown), so a standby need not wait for the expiry. */
  async release(): Promise<void> {
    const token = this.token;
    this.token = undefined;
    if (token === undefined) return;
    await this.db.query(`UPDATE engine_lease SET expires_at = now() - interval '1 millisecond' WHERE name = $1 AND token = $2`, [NAME, token]);
  }

  /** Closes its connection for good (shutdown: a later statement fails, nothing is sent). */
  close(): Promise<void> {
    return this.db.close();
  }

  /** Forgets the lease locally (it was lost, or a write was fenced). */
  drop(): void {
    this.token = undefined;
  }

  /** Who holds it and until when (operators, tests). */
  async state(): Promise<{ holder: string; token: number; expiresInMs: number } | undefined> {
    const {
      rows: [r],
    } = await this.db.query<{ holder: string; token: string; ms: string }>(
      `SELECT holder, token, (EXTRACT(EPOCH FROM expires_at - now()) * 1000)::bigint AS ms FROM engine_lease WHERE name = $1`,
      [NAME],
    );
    return r ? { holder: r.holder, token: Number(r.token), expiresInMs: Number(r.ms) } : undefined;
  }
}

/** A journal write refused because the lease's token moved on: this process is no longer the sequencer. */
export class FencedError extends Error {
  constructor(token: number) {
    super(`journal write fenced: lease token ${token} is no longer current`);
  }
}
