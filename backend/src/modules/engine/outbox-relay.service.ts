import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { EngineBus } from './engine-bus';
import { EngineHost } from './engine-host.service';
import type { SeqCode } from './sequencer/commands';
import { type Posting, refusal } from './trade-account-commands';

const BATCH = 500;
const POLL_MS = 1000;

/**
 * Commands for the sequencer that start in a database transaction (an operator's decision, a
 * transfer out of a database account, the operator CLI): the caller writes them here in its own
 * transaction, so the decision and the money command commit together; this relay sends every
 * pending one, in order, with its command id, and records the sequencer's result. A crash in
 * between only delays it: the sequencer's idempotency window makes a resend count once, and a row
 * whose command is already in `sequencer_commands` (applied and projected) is marked, not resent.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OutboxRelay');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private wake: Array<() => void> = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: EngineHost,
    private readonly bus: EngineBus,
  ) {}

  onApplicationBootstrap(): void {
    // Another process (split roles) wrote to the outbox: the relay beside the sequencer sends it now.
    this.bus.on('outbox', () => this.kick());
    this.timer = setInterval(() => this.host.settled && this.kick(), POLL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Inside the caller's transaction. A command id already there is left as it is (a retry). */
  async enqueue(m: EntityManager, p: Posting): Promise<void> {
    await m.query('INSERT INTO sequencer_outbox (command_id, command) VALUES ($1, $2) ON CONFLICT (command_id) DO NOTHING', [p.commandId, JSON.stringify(p)]);
  }

  /** After the caller's commit: sends what is pending and waits for this command's result (undefined if not applied in time). */
  async applied(commandId: string, timeoutMs = 10_000): Promise<SeqCode | undefined> {
    return (await this.appliedAt(commandId, timeoutMs))?.code;
  }

  /**
   * As `applied`, with the journal position it was applied at. The users it moved money for are
   * registered with this process's watermarks first, so their next read here waits for its
   * projection (on an api process of the split roles the relay runs elsewhere: nothing else tells it).
   */
  async appliedAt(commandId: string, timeoutMs = 10_000): Promise<{ code: SeqCode; seq: number } | undefined> {
    const until = Date.now() + timeoutMs;
    this.kick();
    for (;;) {
      const [row]: Array<{ result: SeqCode; seq: string; command: Posting }> = await this.dataSource.query(
        'SELECT result, applied_seq AS seq, command FROM sequencer_outbox WHERE command_id = $1 AND applied_seq IS NOT NULL',
        [commandId],
      );
      if (row) {
        const seq = Number(row.seq);
        const users = row.command.legs.filter((l) => l.ownerType === 'user').map((l) => l.ownerId);
        if (row.result === 'OK') this.host.wroteFor(users, seq);
        return { code: row.result, seq };
      }
      if (Date.now() > until) return undefined;
      await new Promise<void>((resolve) => {
        this.wake.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /**
   * As `appliedAt`, for a request's answer: a refusal is its business error, and no result in time is
   * 2107 (the command stays in the outbox and is applied once a sequencer runs; a retry answers it).
   */
  async appliedOrFail(commandId: string, timeoutMs?: number): Promise<number> {
    const r = await this.appliedAt(commandId, timeoutMs);
    if (!r) throw new BusinessError(ErrorCode.ENGINE_UNKNOWN);
    if (r.code !== 'OK') throw refusal(r.code);
    return r.seq;
  }

  /** Whether this command was ever written to the outbox (applied or not). */
  async holds(commandId: string): Promise<boolean> {
    const [row] = await this.dataSource.query('SELECT 1 FROM sequencer_outbox WHERE command_id = $1', [commandId]);
    return row !== undefined;
  }

  kick(): void {
    if (!this.host.owner) return this.host.outboxKick();
    // Not while the projection catches up with a rebuild: the timer relays once it has (host.settled).
    if (!this.host.settled) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.relay()
      .catch((err) => this.logger.warn({ err }, 'outbox relay failed; retrying'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async relay(): Promise<void> {
    for (;;) {
      // A row whose command was applied and projected (`sequencer_commands`) but not marked (a crash
      // between the two) is marked now with the batch that applied it, not sent: past the sequencer's
      // window a resend would apply again. (Sent rows are marked with the journal's position after them.)
      const rows: Array<{ id: string; command: Posting; applied: string | null }> = await this.dataSource.query(
        `SELECT o.id, o.command, c.seq AS applied FROM sequencer_outbox o LEFT JOIN sequencer_commands c ON c.command_id = o.command_id
         WHERE o.applied_seq IS NULL ORDER BY o.id LIMIT $1`,
        [BATCH],
      );
      if (!rows.length) return;
      // Submitted together, in id order: they join the same group commits, in that order.
      const results = await Promise.all(rows.map((r) => (r.applied !== null ? { code: 'OK' } : this.host.submit({ t: 'post', ...r.command }))));
      const seq = this.host.positions.journaled;
      await this.dataSource.query(
        'UPDATE sequencer_outbox o SET applied_seq = v.seq, result = v.result FROM unnest($1::bigint[], $2::bigint[], $3::varchar[]) v(id, seq, result) WHERE o.id = v.id',
        [rows.map((r) => r.id), rows.map((r) => r.applied ?? seq), results.map((r) => r.code)],
      );
      for (const w of this.wake.splice(0)) w();
      if (rows.length < BATCH) return;
    }
  }
}
