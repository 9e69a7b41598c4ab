import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY, RATE } from '../../infra/database/columns';

/**
 * approving → (operator) disbursing → approved (paid out) → repaying (partly repaid) → repaid;
 * approving → rejected ("approval failed"); approved/repaying → overdue after the due date (the
 * overdue job), overdue → repaid. `disbursing` is the reserved approval whose 802 credit is on
 * its way (shown to the user as approving); a restart finishes it, or releases it to approving.
 */
export type LoanStatus = 'approving' | 'disbursing' | 'rejected' | 'approved' | 'repaying' | 'repaid' | 'overdue';

@Entity('loan_orders')
@Index('ix_loan_orders_user', ['userId', 'id'])
@Index('ix_loan_orders_status', ['status', 'id'])
@Index('uq_loan_orders_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class LoanOrder {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'product_id', type: 'int' })
  productId: number;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ ...MONEY })
  amount: string;

  @Column({ type: 'int' })
  days: number;

  /** The product's rate when the user applied (what the preview showed). */
  @Column({ ...RATE, name: 'daily_rate' })
  dailyRate: string;

  @Column({ type: 'varchar', length: 64 })
  lender: string;

  @Column({ name: 'front_image', type: 'varchar', length: 36 })
  frontImage: string;

  @Column({ name: 'back_image', type: 'varchar', length: 36 })
  backImage: string;

  @Column({ name: 'passport_image', type: 'varchar', length: 36 })
  passportImage: string;

  @Column({ type: 'varchar', length: 12, default: 'approving' })
  status: LoanStatus;

  /** Fixed at approval: amount × daily rate × days, truncated. */
  @Column({ ...MONEY })
  interest: string;

  @Column({ ...MONEY, name: 'repay_amount' })
  repayAmount: string;

  /** What is still owed (reduced when a repayment is done or an operator approves a proof). */
  @Column({ ...MONEY })
  remaining: string;

  /** Repayments on their way (balance repayments being posted, proofs in review): never above `remaining`. */
  @Column({ ...MONEY })
  pending: string;

  /** Interest covered by repayments done or on their way from the balance. */
  @Column({ ...MONEY, name: 'interest_paid' })
  interestPaid: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason: string | null;

  @Column({ name: 'reviewed_by', type: 'int', nullable: true })
  reviewedBy: number | null;

  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @Column({ name: 'due_at', type: 'timestamptz', nullable: true })
  dueAt: Date | null;

  @Column({ name: 'disbursed_at', type: 'timestamptz', nullable: true })
  disbursedAt: Date | null;

  @Column({ name: 'overdue_at', type: 'timestamptz', nullable: true })
  overdueAt: Date | null;

  @Column({ name: 'repaid_at', type: 'timestamptz', nullable: true })
  repaidAt: Date | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
