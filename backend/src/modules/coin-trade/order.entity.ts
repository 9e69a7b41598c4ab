import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CREATED_AT, MONEY } from '../../infra/database/columns';

export type OrderStatus = 'waiting' | 'completed' | 'cancelled';

/**
 * Spot order projection. Its id is the engine's order id (from `order_ids`), assigned when the
 * order is journaled; the journal (events stream `engine:<market>`) is the source of truth.
 */
@Entity('orders')
// Not unique: client order ids are deduplicated by the sequencer within its idempotency window (docs/architecture.md).
@Index('ix_orders_client_id', ['userId', 'clientOrderId'], { where: 'client_order_id IS NOT NULL' })
@Index('ix_orders_user_status', ['userId', 'status', 'id'])
export class Order {
  @PrimaryColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'market_id', type: 'int' })
  marketId: number;

  @Column({ type: 'varchar', length: 4 })
  side: 'buy' | 'sell';

  @Column({ type: 'varchar', length: 8 })
  type: 'limit' | 'market';

  /** Limit price; for a market order the worst price accepted, or null. */
  @Column({ type: 'numeric', precision: 36, scale: 18, nullable: true })
  price: string | null;

  /** Base quantity asked; null for a market buy by quote amount. */
  @Column({ type: 'numeric', precision: 36, scale: 18, nullable: true })
  quantity: string | null;

  /** Market buy: quote amount to spend at most. */
  @Column({ name: 'quote_amount', type: 'numeric', precision: 36, scale: 18, nullable: true })
  quoteAmount: string | null;

  @Column({ ...MONEY, name: 'filled_qty' })
  filledQty: string;

  /** Σ price × quantity of the fills. */
  @Column({ ...MONEY, name: 'filled_quote' })
  filledQuote: string;

  @Column({ ...MONEY })
  fee: string;

  @Column({ name: 'frozen_currency_id', type: 'int' })
  frozenCurrencyId: number;

  /** Still frozen for this order (released when it completes or is cancelled). */
  @Column({ ...MONEY, name: 'frozen_left' })
  frozenLeft: string;

  @Column({ type: 'varchar', length: 12 })
  status: OrderStatus;

  @Column({ name: 'client_order_id', type: 'varchar', length: 64, nullable: true })
  clientOrderId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
