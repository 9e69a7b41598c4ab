import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

@Entity('verification_codes')
@Index('ix_verification_codes_target', ['target', 'purpose', 'id'])
export class VerificationCode {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'varchar', length: 8 })
  channel: 'sms' | 'email';

  /** "+<area> <number>" for phones, the lower-cased address for e-mail. */
  @Column({ type: 'varchar', length: 200 })
  target: string;

  @Column({ type: 'varchar', length: 32 })
  purpose: string;

  @Column({ name: 'code_hash', type: 'char', length: 64 })
  codeHash: string;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'consumed_at', type: 'timestamptz', nullable: true })
  consumedAt: Date | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
