import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY, RATE } from '../../infra/database/columns';
import type { PenaltyMode, WealthKind } from './wealth-product.entity';

export type WealthOrderStatus = 'hosting' | 'completed' | 'redeemed';

/**
 * One purchase. The principal sits frozen in the user's trust account (40) until maturity or
 * redemption (41); `reserve` is what the house still holds frozen in `treasury` for this order's
 * interest. Days are UTC epoch days: interest for day d is credited at 00:00 UTC of day d + 1;
 * `paid_days` counts the days credited from `start_day` (the day after purchase).
 */
@Entity('wealth_orders')
@Index('ix_wealth_orders_user', ['userId', 'status', 'id'])
@Index('ix_wealth_orders_hosting', ['id'], { where: "status = 'hosting'" })
@Index('uq_wealth_orders_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class WealthOrder {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'product_id', type: 'int' })
  productId: number;

  @Column({ type: 'varchar', length: 10 })
  kind: WealthKind;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ ...MONEY })
  amount: string;

  @Column({ type: 'int', default: 0 })
  days: number;

  @Column({ ...MONEY, name: 'daily_interest' })
  dailyInterest: string;

  /** Fixed terms: the whole promised interest (the last day pays the truncation remainder). Flexible: 0. */
  @Column({ ...MONEY, name: 'total_interest' })
  totalInterest: string;

  @Column({ ...MONEY })
  reserve: string;

  @Column({ ...MONEY })
  earned: string;

  @Column({ name: 'paid_days', type: 'int', default: 0 })
  paidDays: number;

  @Column({ name: 'start_day', type: 'int' })
  startDay: number;

  /** Fixed terms: 00:00 UTC after the last interest day. */
  @Column({ name: 'end_at', type: 'timestamptz', nullable: true })
  endAt: Date | null;

  @Column({ type: 'varchar', length: 12, default: 'hosting' })
  status: WealthOrderStatus;

  @Column({ name: 'penalty_mode', type: 'varchar', length: 8 })
  penaltyMode: PenaltyMode;

  @Column({ ...RATE, name: 'penalty_ratio' })
  penaltyRatio: string;

  @Column({ ...RATE, name: 'penalty_multiple' })
  penaltyMultiple: string;

  @Column({ ...MONEY, nullable: true })
  penalty: string | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;

  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true })
  closedAt: Date | null;
}
