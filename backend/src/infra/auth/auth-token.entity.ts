import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../database/columns';

/** Opaque session tokens; only the SHA-256 of the token is stored. */
@Entity('auth_tokens')
@Index('ix_auth_tokens_subject', ['subjectType', 'subjectId'])
export class AuthToken {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'token_hash', type: 'char', length: 64, unique: true })
  tokenHash: string;

  @Column({ name: 'subject_type', type: 'varchar', length: 8 })
  subjectType: 'user' | 'admin';

  @Column({ name: 'subject_id', type: 'int' })
  subjectId: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
