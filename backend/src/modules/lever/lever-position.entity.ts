import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY, RATE } from '../../infra/database/columns';

export type LeverSide = 'long' | 'short';
export type LeverStatus = 'pending' | 'holding' | 'closed' | 'cancelled';
export type CloseReason = 'user' | 'take_profit' | 'stop_loss' | 'liquidation';

/**
 * A contract order and, once filled, its position. Opened, closed and triggered only on recorded
 * mark-price ticks, whose ids are stored here so every result can be checked.
 */
@Entity('lever_positions')
@Index('ix_lever_positions_user', ['userId', 'id'])
@Index('ix_lever_positions_open', ['marketId', 'status'], { where: "status IN ('pending', 'holding')" })
@Index('uq_lever_positions_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class LeverPosition {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'market_id', type: 'int' })
  marketId: number;

  @Column({ type: 'varchar', length: 5 })
  side: LeverSide;

  @Column({ type: 'varchar', length: 6 })
  type: 'market' | 'limit';

  @Column({ type: 'int' })
  lots: number;

  @Column({ type: 'int' })
  multiple: number;

  @Column({ ...MONEY, name: 'lot_value' })
  lotValue: string;

  /** lots × lot value / multiple (USDT), frozen in the contract account while open. */
  @Column({ ...MONEY })
  margin: string;

  @Column({ ...MONEY })
  fee: string;

  @Column({ ...RATE, name: 'maintenance_rate' })
  maintenanceRate: string;

  /** Limit orders: the mark price at which it opens. */
  @Column({ ...MONEY, name: 'target_price', nullable: true, default: null })
  targetPrice: string | null;

  @Column({ ...MONEY, name: 'take_profit' })
  takeProfit: string;

  @Column({ ...MONEY, name: 'stop_loss' })
  stopLoss: string;

  /**
   * The market's newest recorded tick when take-profit and stop-loss were last changed: only later
   * ticks trigger them (a level set now never fires on a tick the watcher has not reached yet).
   * Null: set with the order, so every tick after the open counts.
   */
  @Column({ name: 'tpsl_tick_id', type: 'bigint', nullable: true })
  tpslTickId: string | null;

  /**
   * A limit order's market's newest recorded tick when it was placed: only later ticks fill it (ids,
   * not times: a tick's time is the sampling process's clock, the order's the database's). Null for
   * a market order, and for limit orders placed before this column (those compare times).
   */
  @Column({ name: 'placed_tick_id', type: 'bigint', nullable: true })
  placedTickId: string | null;

  @Column({ type: 'varchar', length: 10, default: 'pending' })
  status: LeverStatus;

  @Column({ ...MONEY, name: 'open_price', nullable: true, default: null })
  openPrice: string | null;

  @Column({ name: 'open_tick_id', type: 'bigint', nullable: true })
  openTickId: string | null;

  @Column({ name: 'opened_at', type: 'timestamptz', nullable: true })
  openedAt: Date | null;

  @Column({ ...MONEY, name: 'close_price', nullable: true, default: null })
  closePrice: string | null;

  @Column({ name: 'close_tick_id', type: 'bigint', nullable: true })
  closeTickId: string | null;

  @Column({ name: 'close_reason', type: 'varchar', length: 12, nullable: true })
  closeReason: CloseReason | null;

  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true })
  closedAt: Date | null;

  /**
   * A trigger (take profit, stop loss, liquidation) that fired on this tick but could not settle
   * then (the treasury short of the profit, or a failed write): the position settles at that tick's
   * price as soon as it can (LeverService.settleTriggered), and no later tick fires another.
   */
  @Column({ name: 'trigger_tick_id', type: 'bigint', nullable: true })
  triggerTickId: string | null;

  @Column({ name: 'trigger_reason', type: 'varchar', length: 12, nullable: true })
  triggerReason: CloseReason | null;

  /** Realised P/L (the fee is separate), never below −margin. */
  @Column({ ...MONEY, nullable: true, default: null })
  pnl: string | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
