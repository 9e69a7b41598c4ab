import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/** A book snapshot taken after every command up to `journalVersion` was matched and settled. */
@Entity('engine_snapshots')
export class EngineSnapshot {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'market_id', type: 'int' })
  marketId: number;

  /** Stream version of the last journaled command the snapshot includes. */
  @Column({ name: 'journal_version', type: 'int' })
  journalVersion: number;

  @Column({ type: 'jsonb' })
  book: Record<string, unknown>;

  @Column(CREATED_AT)
  createdAt: Date;
}
