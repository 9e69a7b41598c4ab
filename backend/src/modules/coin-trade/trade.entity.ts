import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { MONEY } from '../../infra/database/columns';

/** A fill, keyed by the engine's per-market trade id (the settlement idempotency key). */
@Entity('trades')
@Index('ix_trades_market_time', ['marketId', 'executedAt'])
export class Trade {
  @PrimaryColumn({ name: 'market_id', type: 'int' })
  marketId: number;

  @PrimaryColumn({ name: 'trade_id', type: 'bigint' })
  tradeId: string;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  price: string;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  quantity: string;

  @Column({ name: 'quote_quantity', type: 'numeric', precision: 36, scale: 18 })
  quoteQuantity: string;

  @Column({ name: 'taker_side', type: 'varchar', length: 4 })
  takerSide: 'buy' | 'sell';

  @Column({ name: 'maker_order_id', type: 'bigint' })
  makerOrderId: string;

  @Column({ name: 'taker_order_id', type: 'bigint' })
  takerOrderId: string;

  @Column({ name: 'maker_user_id', type: 'int' })
  makerUserId: number;

  @Column({ name: 'taker_user_id', type: 'int' })
  takerUserId: number;

  @Column({ ...MONEY, name: 'maker_fee' })
  makerFee: string;

  @Column({ ...MONEY, name: 'taker_fee' })
  takerFee: string;

  @Column({ name: 'executed_at', type: 'timestamptz' })
  executedAt: Date;
}
