import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY, RATE } from '../../infra/database/columns';

/** fixed = fixed-term hosting; mining = mining-machine rental (fixed-term, its own listing); flexible = the flexible fund. */
export type WealthKind = 'fixed' | 'flexible' | 'mining';
/** How `rate` reads: per day, or the whole term's yield. */
export type RateMode = 'daily' | 'total';
/** ratio: ratio × remaining days × amount; tip: multiple × the daily interest; none: free redemption. */
export type PenaltyMode = 'ratio' | 'tip' | 'none';

/**
 * A wealth product. Its terms are copied onto each order at purchase, so an operator's later
 * edit changes only new purchases. `sold` is raised by a conditional update (never past `capacity`).
 */
@Entity('wealth_products')
export class WealthProduct {
  @PrimaryGeneratedColumn()
  id: number;

  /** A stable name for seeds and operators (unique). */
  @Column({ type: 'varchar', length: 40, unique: true })
  code: string;

  @Column({ type: 'varchar', length: 10 })
  kind: WealthKind;

  /** The default (English) name, shown where `names` has none in the reader's language. */
  @Column({ type: 'varchar', length: 80 })
  name: string;

  /** The name per language (`{en, zh, …}`; its `en` is `name`, the others 1–40 characters); empty until a product is saved with it. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  names: Record<string, string>;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  /** The cycle in days (fixed and mining); the flexible fund has none (0). */
  @Column({ type: 'int', default: 0 })
  days: number;

  @Column({ ...MONEY, name: 'min_amount' })
  minAmount: string;

  @Column({ ...RATE })
  rate: string;

  @Column({ name: 'rate_mode', type: 'varchar', length: 8, default: 'daily' })
  rateMode: RateMode;

  /** Flexible fund: an order below this principal earns nothing (spec §9: 10,000 USDT). */
  @Column({ ...MONEY, name: 'accrual_min' })
  accrualMin: string;

  @Column({ name: 'penalty_mode', type: 'varchar', length: 8, default: 'ratio' })
  penaltyMode: PenaltyMode;

  @Column({ ...RATE, name: 'penalty_ratio' })
  penaltyRatio: string;

  @Column({ ...RATE, name: 'penalty_multiple' })
  penaltyMultiple: string;

  /** Total principal the product takes. */
  @Column({ ...MONEY })
  capacity: string;

  @Column({ ...MONEY })
  sold: string;

  @Column({ name: 'sale_start', type: 'timestamptz' })
  saleStart: Date;

  @Column({ name: 'sale_end', type: 'timestamptz', nullable: true })
  saleEnd: Date | null;

  /** Open (listed and buyable) or closed by an operator. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'int', default: 0 })
  sort: number;

  @Column(CREATED_AT)
  createdAt: Date;
}
