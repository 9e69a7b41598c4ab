import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY } from '../../infra/database/columns';

/**
 * One repayment. `balance`: from the user's trade account through the sequencer
 * (pending → done | failed). `transfer`: an external transfer reported with an image, reviewed
 * by an operator (review → approved | rejected).
 */
export type RepaymentKind = 'balance' | 'transfer';
export type RepaymentStatus = 'pending' | 'done' | 'failed' | 'review' | 'approved' | 'rejected';

@Entity('loan_repayments')
@Index('ix_loan_repayments_order', ['orderId', 'id'])
@Index('ix_loan_repayments_user', ['userId', 'id'])
@Index('ix_loan_repayments_status', ['status', 'id'])
@Index('ix_loan_repayments_image', ['image'], { where: 'image IS NOT NULL' })
@Index('uq_loan_repayments_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class LoanRepayment {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'order_id', type: 'bigint' })
  orderId: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ type: 'varchar', length: 8 })
  kind: RepaymentKind;

  @Column({ ...MONEY })
  amount: string;

  /** The interest (801) and principal (800) parts: set when the money moves (or is reserved to). */
  @Column({ ...MONEY, name: 'interest_part' })
  interestPart: string;

  @Column({ ...MONEY, name: 'principal_part' })
  principalPart: string;

  @Column({ type: 'varchar', length: 36, nullable: true })
  image: string | null;

  @Column({ type: 'varchar', length: 12 })
  status: RepaymentStatus;

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason: string | null;

  @Column({ name: 'reviewed_by', type: 'int', nullable: true })
  reviewedBy: number | null;

  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
