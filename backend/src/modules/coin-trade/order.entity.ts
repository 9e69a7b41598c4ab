import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BALANCE_OR_NULL, CREATED_AT, MONEY, MONEY_OR_NULL } from '../../infra/database/columns';

/** Every status an order can have (wallet/log reads a trader's order freezes one status at a time). */
export const ORDER_STATUSES = ['waiting', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * Spot order projection. Its id is the engine's order id (from `order_ids`), assigned when the
 * order is journaled; the journal (events stream `engine:<market>`) is the source of truth.
 */
@Entity('orders')
// Not unique: client order ids are deduplicated by the sequencer within its idempotency window (docs/architecture.md).
@Index('ix_orders_client_id', ['userId', 'clientOrderId'], { where: 'client_order_id IS NOT NULL' })
@Index('ix_orders_user_status', ['userId', 'status', 'id'])
@Index('ix_orders_freeze_currency', ['userId', 'frozenCurrencyId', 'id'], { where: 'freeze_ledger_id IS NOT NULL' })
@Index('ix_orders_release_ledger', ['userId', 'releaseLedgerId'], { where: 'release_ledger_id IS NOT NULL' })
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

  // The order's ledger postings (the views `order_freezes` and `order_releases`; migration
  // OrderFreezeLedger): null for orders projected before it, whose 901/902 are in ledger_entries.
  /** What placing it froze (901); the release (902) is this less what the fills paid from it. */
  @Column({ ...MONEY_OR_NULL, name: 'frozen_amount' })
  frozenAmount: string | null;

  /** The freeze's place in the ledger's order and its journal batch. */
  @Column({ name: 'freeze_ledger_id', type: 'bigint', nullable: true })
  freezeLedgerId: string | null;

  @Column({ name: 'freeze_seq', type: 'bigint', nullable: true })
  freezeSeq: string | null;

  /** The frozen currency's account after the freeze (unbounded, as balances). */
  @Column({ ...BALANCE_OR_NULL, name: 'freeze_available_after' })
  freezeAvailableAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'freeze_frozen_after' })
  freezeFrozenAfter: string | null;

  /** The release's place, batch and account after it: null while the order rests, or when it left nothing frozen. */
  @Column({ name: 'release_ledger_id', type: 'bigint', nullable: true })
  releaseLedgerId: string | null;

  @Column({ name: 'release_seq', type: 'bigint', nullable: true })
  releaseSeq: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'release_available_after' })
  releaseAvailableAfter: string | null;

  @Column({ ...BALANCE_OR_NULL, name: 'release_frozen_after' })
  releaseFrozenAfter: string | null;
}
