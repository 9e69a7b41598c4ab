import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { MONEY, RATE } from '../../infra/database/columns';

/** A delivery time users can choose (microtrade/seconds), configured by operators. */
@Entity('option_periods')
export class OptionPeriod {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int', unique: true })
  seconds: number;

  /** A win pays stake × (1 + profit_ratio). */
  @Column({ ...RATE, name: 'profit_ratio' })
  profitRatio: string;

  @Column({ ...MONEY, name: 'min_qty' })
  minQty: string;

  @Column({ ...MONEY, name: 'max_qty' })
  maxQty: string;

  /** Charged on the stake at purchase (ledger 401). */
  @Column({ ...RATE, name: 'fee_rate' })
  feeRate: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'int', default: 0 })
  sort: number;
}
