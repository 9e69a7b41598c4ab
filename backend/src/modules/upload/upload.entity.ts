import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/** An image a user uploaded (already cleaned of metadata). Other records refer to it by id. */
@Entity('uploads')
@Index('ix_uploads_user', ['userId', 'createdAt'])
export class Upload {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 32 })
  mime: string;

  /** Size of the stored (re-encoded) file. */
  @Column({ type: 'int' })
  bytes: number;

  @Column({ type: 'int' })
  width: number;

  @Column({ type: 'int' })
  height: number;

  /** SHA-256 of the stored bytes (null for uploads from before it was kept): one picture uploaded twice backs one payment report. */
  @Index('ix_uploads_sha256', { where: '"sha256" IS NOT NULL' })
  @Column({ type: 'bytea', nullable: true })
  sha256: Buffer | null;

  /** The key in FileStorage. */
  @Column({ name: 'storage_key', type: 'varchar', length: 200 })
  storageKey: string;

  @Column(CREATED_AT)
  createdAt: Date;
}
