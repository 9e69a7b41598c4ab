import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY, RATE } from '../../infra/database/columns';

/** A loan product set by operators: currency, amount range, cycles in days, daily rate, lender. */
@Entity('loan_products')
export class LoanProduct {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 32, unique: true })
  code: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** Shown to the user as the lender. */
  @Column({ type: 'varchar', length: 64 })
  lender: string;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ ...MONEY, name: 'min_amount' })
  minAmount: string;

  @Column({ ...MONEY, name: 'max_amount' })
  maxAmount: string;

  /** Repayment cycles offered, in days (e.g. [7, 15, 30]). */
  @Column({ type: 'jsonb' })
  cycles: number[];

  @Column({ ...RATE, name: 'daily_rate' })
  dailyRate: string;

  /** The only method today: principal and interest at once, at maturity. */
  @Column({ name: 'repay_method', type: 'varchar', length: 16, default: 'maturity' })
  repayMethod: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'int', default: 0 })
  sort: number;

  @Column(CREATED_AT)
  createdAt: Date;
}
