import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY } from '../../infra/database/columns';

export type ReviewStatus = 'review' | 'passed' | 'rejected';

/** A deposit the user reported (with a proof image), waiting for an operator's decision. */
@Entity('deposits')
@Index('ix_deposits_user', ['userId', 'id'])
@Index('ix_deposits_status', ['status', 'id'])
@Index('ix_deposits_proof', ['proofUploadId'])
@Index('uq_deposits_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class Deposit {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ type: 'varchar', length: 16 })
  chain: string;

  /** The exchange's address the user paid to, as configured when they reported it. */
  @Column({ type: 'varchar', length: 200 })
  address: string;

  @Column({ ...MONEY })
  amount: string;

  @Column({ name: 'proof_upload_id', type: 'uuid' })
  proofUploadId: string;

  @Column({ type: 'varchar', length: 16, default: 'review' })
  status: ReviewStatus;

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason: string | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column({ name: 'reviewed_by', type: 'int', nullable: true })
  reviewedBy: number | null;

  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
