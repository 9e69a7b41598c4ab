import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/**
 * A message left for one user (an operator's decision on a deposit, withdrawal or verification).
 * Stored as a catalogue key plus parameters so it reads in the user's language when shown.
 */
@Entity('user_messages')
@Index('ix_user_messages_user', ['userId', 'id'])
export class UserMessage {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  /** Catalogue key of the title, e.g. `notice.deposit_approved`. */
  @Column({ name: 'title_key', type: 'varchar', length: 64 })
  titleKey: string;

  /** Parameters of the title and body (amount, coin, reason…). */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  params: Record<string, string>;

  /** What the message is about, e.g. `deposit:17`. */
  @Column({ type: 'varchar', length: 64, default: '' })
  ref: string;

  @Column({ name: 'read_at', type: 'timestamptz', nullable: true })
  readAt: Date | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
