import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

export interface NewEvent {
  type: string;
  payload: Record<string, unknown>;
}

export interface EventMetadata {
  actor: string;
  commandId?: string;
  correlationId?: string;
  reason?: string;
  [key: string]: unknown;
}

export interface AppendOptions {
  streamId: string;
  /** The version the caller saw; `'any'` appends after whatever is there. */
  expectedVersion?: number | 'any';
  metadata: EventMetadata;
}

export interface StoredEvent {
  seq: string;
  streamId: string;
  streamVersion: number;
  type: string;
}

export class ConcurrencyError extends Error {
  constructor(streamId: string, expected: number, actual: number) {
    super(`stream ${streamId}: expected version ${expected}, found ${actual}`);
  }
}

/** Postgres unique violation on the command id: the command was already applied. */
export function isDuplicateCommand(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e.driverError?.code ?? e.code;
  const constraint = e.driverError?.constraint ?? e.constraint;
  return code === '23505' && constraint === 'uq_events_command_id';
}

/**
 * The append-only event store (DESIGN §4). Appends run inside the caller's transaction so the
 * events and the projections they change commit together. The command id is stored on the
 * first event of a command; its unique index makes a retried command a no-op.
 */
@Injectable()
export class EventStoreService {
  async append(manager: EntityManager, opts: AppendOptions, events: NewEvent[]): Promise<StoredEvent[]> {
    // One writer per stream at a time; other streams are not blocked.
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [opts.streamId]);
    const [{ version }] = await manager.query('SELECT COALESCE(MAX(stream_version), 0)::int AS version FROM events WHERE stream_id = $1', [opts.streamId]);
    const expected = opts.expectedVersion ?? 'any';
    if (expected !== 'any' && expected !== version) throw new ConcurrencyError(opts.streamId, expected, version);

    const stored: StoredEvent[] = [];
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const rows: Array<{ seq: string }> = await manager.query(
        `INSERT INTO events (stream_id, stream_version, type, payload, metadata, command_id)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq`,
        [opts.streamId, version + i + 1, e.type, JSON.stringify(e.payload), JSON.stringify(opts.metadata), i === 0 ? (opts.metadata.commandId ?? null) : null],
      );
      stored.push({ seq: rows[0].seq, streamId: opts.streamId, streamVersion: version + i + 1, type: e.type });
    }
    return stored;
  }

  /**
   * An operator's read of users' data (the outbox, identity data, images), recorded in the read's
   * transaction on stream and actor `admin:<id>`: a read changes nothing of the exchange, so these are
   * not among the operator actions of contracts/src/integrity.ts (the write routes).
   */
  recordOperatorRead(manager: EntityManager, adminId: number, type: string, payload: Record<string, unknown>): Promise<StoredEvent[]> {
    return this.append(manager, { streamId: `admin:${adminId}`, metadata: { actor: `admin:${adminId}` } }, [{ type, payload }]);
  }

  async findByCommandId(manager: EntityManager, commandId: string): Promise<StoredEvent | undefined> {
    const rows: Array<{ seq: string; stream_id: string; stream_version: number; type: string }> = await manager.query(
      'SELECT seq, stream_id, stream_version, type FROM events WHERE command_id = $1',
      [commandId],
    );
    const r = rows[0];
    return r && { seq: r.seq, streamId: r.stream_id, streamVersion: r.stream_version, type: r.type };
  }

  async readStream(manager: EntityManager, streamId: string): Promise<Array<StoredEvent & { payload: Record<string, unknown> }>> {
    const rows: Array<{ seq: string; stream_id: string; stream_version: number; type: string; payload: Record<string, unknown> }> = await manager.query(
      'SELECT seq, stream_id, stream_version, type, payload FROM events WHERE stream_id = $1 ORDER BY stream_version',
      [streamId],
    );
    return rows.map((r) => ({ seq: r.seq, streamId: r.stream_id, streamVersion: r.stream_version, type: r.type, payload: r.payload }));
  }
}
