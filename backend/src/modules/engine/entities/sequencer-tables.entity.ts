import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../../infra/database/columns';

/**
 * The sequencer's journal: one row per group commit, the batch's commands in order (DESIGN §6).
 * Written before anything of the batch is answered, pushed or applied; never updated.
 */
@Entity('sequencer_journal')
export class SequencerJournalRow {
  /** Batch sequence number: 1, 2, 3… with no gaps. */
  @PrimaryColumn({ type: 'bigint' })
  seq: string;

  /** The batch's time (ms since the epoch): every timestamp the batch's commands produce. */
  @Column({ type: 'bigint' })
  ts: string;

  /** The batch's commands as the JSON text the host wrote (rows since JournalText); read through `JOURNAL_COMMANDS`. */
  @Column({ name: 'commands_text', type: 'text', nullable: true })
  commandsText: string | null;

  /** The same, as jsonb: rows written before JournalText (the newer ones leave it null). */
  @Column({ type: 'jsonb', nullable: true })
  commands: unknown[] | null;

  /** The writer's fencing token (engine_lease): which holder wrote the batch; null before leases. */
  @Column({ type: 'bigint', nullable: true })
  token: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}

/** The sequencer's whole state after batch `seq` (books, balances, live orders, counters, idempotency window). */
@Entity('sequencer_snapshots')
export class SequencerSnapshotRow {
  @PrimaryColumn({ type: 'bigint' })
  seq: string;

  /** The snapshot's canonical JSON (`Sequencer.snapshot()`), as text: stored as it is, lz4-compressed (migration SnapshotText). */
  @Column({ type: 'text' })
  state: string;

  /** The replay hash of `state`. */
  @Column({ type: 'varchar', length: 64 })
  hash: string;

  @Column(CREATED_AT)
  createdAt: Date;
}

/** The projector's watermark: every batch up to `seq` is in the read tables (written in the same transaction). */
@Entity('sequencer_projection')
export class SequencerProjectionRow {
  @PrimaryColumn({ type: 'smallint' })
  id: number;

  @Column({ type: 'bigint' })
  seq: string;

  /** The highest ledger id a projection has given (its entries', trades' and orders' postings): the proof's watermark. */
  @Column({ name: 'ledger_id', type: 'bigint', nullable: true })
  ledgerId: string | null;
}

/**
 * Every applied posting command (`post`: transfers, withdrawals, deposits, conversions, operators'
 * fundings…) by its command id, written by the projector with the batch that applied it. The
 * sequencer remembers command ids for its window only (24 h or 1,000,000 commands); a retry past
 * it is answered from here (TradeAccountCommands.post), so it never moves money twice.
 */
@Entity('sequencer_commands')
export class SequencerCommandRow {
  @PrimaryColumn({ name: 'command_id', type: 'text', primaryKeyConstraintName: 'pk_sequencer_commands' })
  commandId: string;

  /** The journal batch that applied it. */
  @Column({ type: 'bigint' })
  seq: string;

  /** The batch's time. */
  @Column({ name: 'applied_at', type: 'timestamptz' })
  appliedAt: Date;
}

/**
 * Commands for the sequencer written in a database transaction (a transfer out of a database
 * account, an operator's decision): the relay sends each, with its command id, until it is applied.
 */
@Entity('sequencer_outbox')
@Index('ix_sequencer_outbox_pending', ['id'], { where: 'applied_seq IS NULL' })
export class SequencerOutboxRow {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Index('uq_sequencer_outbox_command', { unique: true })
  @Column({ name: 'command_id', type: 'varchar', length: 100 })
  commandId: string;

  @Column({ type: 'jsonb' })
  command: Record<string, unknown>;

  /** The journal batch that applied it; null while pending. */
  @Column({ name: 'applied_seq', type: 'bigint', nullable: true })
  appliedSeq: string | null;

  /** The sequencer's result code. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  result: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}

/**
 * Who runs the sequencer (DESIGN §3, "Scale beyond one process"): one row per lease. The holder
 * renews `expires_at`; a standby takes the row only once it has expired, and `token` (the fencing
 * token) rises with every new holder. Every journal write checks it, so an old holder that was
 * paused or cut off can never write after a new one took over.
 */
@Entity('engine_lease')
export class EngineLeaseRow {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  name: string;

  /** The holding process (host:pid:random). */
  @Column({ type: 'varchar', length: 128 })
  holder: string;

  @Column({ type: 'bigint' })
  token: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'acquired_at', type: 'timestamptz', default: () => 'now()' })
  acquiredAt: Date;
}
