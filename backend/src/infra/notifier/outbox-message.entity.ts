import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../database/columns';

/** Messages for users (verification codes, notices) waiting for a delivery channel. */
@Entity('outbox')
export class OutboxMessage {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'varchar', length: 8 })
  channel: 'sms' | 'email';

  @Column({ type: 'varchar', length: 200 })
  recipient: string;

  @Column({ type: 'varchar', length: 32 })
  purpose: string;

  @Column({ type: 'text' })
  body: string;

  @Column(CREATED_AT)
  createdAt: Date;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;
}
