import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../database/columns';

/** One append-only row per domain event; `seq` is the global order, (stream, version) the per-stream one. */
@Entity('events')
@Index('uq_events_stream_version', ['streamId', 'streamVersion'], { unique: true })
@Index('uq_events_command_id', ['commandId'], { unique: true, where: 'command_id IS NOT NULL' })
// A flash exchange's requests by age, for the sweep that records conversions left unrecorded (FlashRequests migration).
@Index('ix_events_flash_requested', ['createdAt'], { where: "type = 'FlashRequested'" })
// A user's conversions (fpjy/list): an expression index, created by its migration (1795790000000).
@Index('ix_events_flash_exchanged_user', { synchronize: false })
export class EventRecord {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  seq: string;

  @Column({ name: 'stream_id', type: 'varchar', length: 200 })
  streamId: string;

  @Column({ name: 'stream_version', type: 'int' })
  streamVersion: number;

  @Column({ type: 'varchar', length: 100 })
  type: string;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata: Record<string, unknown>;

  @Column({ name: 'command_id', type: 'varchar', length: 100, nullable: true })
  commandId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
