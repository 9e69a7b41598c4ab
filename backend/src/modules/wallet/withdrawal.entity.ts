import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY } from '../../infra/database/columns';
import type { ReviewStatus } from './deposit.entity';

/** A withdrawal request: `amount` is frozen until an operator approves (sent) or rejects (unfrozen). */
@Entity('withdrawals')
@Index('ix_withdrawals_user', ['userId', 'id'])
@Index('ix_withdrawals_status', ['status', 'id'])
@Index('uq_withdrawals_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class Withdrawal {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ type: 'varchar', length: 16 })
  chain: string;

  @Column({ type: 'varchar', length: 200 })
  address: string;

  /** What leaves the user's balance (fee included). */
  @Column({ ...MONEY })
  amount: string;

  @Column({ ...MONEY })
  fee: string;

  /** amount − fee: what arrives at the address. */
  @Column({ ...MONEY, name: 'actual_amount' })
  actualAmount: string;

  /** The USDT value at request time, counted against the daily limit. */
  @Column({ ...MONEY, name: 'usdt_value' })
  usdtValue: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  remark: string;

  @Column({ type: 'varchar', length: 16, default: 'review' })
  /** `submitting` while its freeze is on its way to the sequencer (never shown; a retry or the engine owner's sweep finishes or removes one a crash or a lost answer left). */
  status: ReviewStatus | 'submitting';

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason: string | null;

  /** The on-chain transaction the operator sent, when approved. */
  @Column({ name: 'tx_hash', type: 'varchar', length: 200, nullable: true })
  txHash: string | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column({ name: 'reviewed_by', type: 'int', nullable: true })
  reviewedBy: number | null;

  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @Column(CREATED_AT)
  createdAt: Date;

  /** The run finishing a `submitting` row (its token) and until when it holds it (WithdrawalService.finishSubmission). */
  @Column({ type: 'uuid', nullable: true })
  claim: string | null;

  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil: Date | null;
}
