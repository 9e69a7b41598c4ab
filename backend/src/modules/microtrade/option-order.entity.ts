import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY, RATE } from '../../infra/database/columns';

export type OptionDirection = 'up' | 'down';
/** `void`: the delivery tick came too late (`DELIVERY_LATE_MS`); the stake is returned. */
export type OptionResult = 'up' | 'down' | 'flat' | 'void';

/**
 * An up/down option. Its result is a pure function of the two recorded mark-price ticks stored
 * on it (opening and delivery) and the direction: nothing else can influence it (DESIGN §1).
 */
@Entity('option_orders')
@Index('ix_option_orders_user', ['userId', 'id'])
@Index('ix_option_orders_due', ['deliverAt'], { where: "status = 'pending'" })
@Index('uq_option_orders_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class OptionOrder {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'market_id', type: 'int' })
  marketId: number;

  @Column({ type: 'varchar', length: 4 })
  direction: OptionDirection;

  /** The stake, in `currency_id` (USDT), from the option account. */
  @Column({ ...MONEY })
  quantity: string;

  @Column({ ...MONEY })
  fee: string;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ type: 'int' })
  seconds: number;

  @Column({ ...RATE, name: 'profit_ratio' })
  profitRatio: string;

  @Column({ name: 'open_tick_id', type: 'bigint' })
  openTickId: string;

  @Column({ ...MONEY, name: 'open_price' })
  openPrice: string;

  @Column({ name: 'open_ts', type: 'timestamptz' })
  openTs: Date;

  @Column({ name: 'deliver_at', type: 'timestamptz' })
  deliverAt: Date;

  @Column({ type: 'varchar', length: 12, default: 'pending' })
  status: 'pending' | 'delivered';

  @Column({ type: 'varchar', length: 4, nullable: true })
  result: OptionResult | null;

  @Column({ name: 'delivery_tick_id', type: 'bigint', nullable: true })
  deliveryTickId: string | null;

  @Column({ ...MONEY, name: 'delivery_price', nullable: true, default: null })
  deliveryPrice: string | null;

  @Column({ name: 'delivery_ts', type: 'timestamptz', nullable: true })
  deliveryTs: Date | null;

  /** The lateness bound it was delivered under (`DELIVERY_LATE_MS`); null: delivered before there was one (never void). */
  @Column({ name: 'void_after_ms', type: 'int', nullable: true })
  voidAfterMs: number | null;

  /**
   * What the house froze in `treasury` for this order at purchase: the stake plus the possible win,
   * the most delivery can pay (null: bought before this was kept, when only the win was frozen).
   */
  @Column({ ...MONEY, nullable: true, default: null })
  reserve: string | null;

  /** What was paid back at delivery (stake + profit, the stake, or 0). */
  @Column({ ...MONEY, nullable: true, default: null })
  payout: string | null;

  /** payout − stake (the fee is separate). */
  @Column({ ...MONEY, nullable: true, default: null })
  pnl: string | null;

  /** When the owner was told the result (a retried delivery pushes what was not pushed). */
  @Column({ name: 'pushed_at', type: 'timestamptz', nullable: true })
  pushedAt: Date | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
