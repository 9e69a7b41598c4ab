import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MONEY, RATE } from '../../infra/database/columns';

/** Contract rules of one market (lever/deal), set by operators. */
@Entity('lever_configs')
export class LeverConfig {
  @PrimaryColumn({ name: 'market_id', type: 'int' })
  marketId: number;

  /** Allowed multiples (leverage), e.g. [5, 10, 20, 50, 100]. */
  @Column({ type: 'jsonb' })
  multiples: number[];

  /** Notional value of one lot in USDT at the open price. */
  @Column({ ...MONEY, name: 'lot_value' })
  lotValue: string;

  @Column({ name: 'min_lots', type: 'int' })
  minLots: number;

  @Column({ name: 'max_lots', type: 'int' })
  maxLots: number;

  /** Fee on the notional at open (ledger 21). */
  @Column({ ...RATE, name: 'fee_rate' })
  feeRate: string;

  /** Maintenance margin as a share of the notional: a position is liquidated when its equity falls to it. */
  @Column({ ...RATE, name: 'maintenance_rate' })
  maintenanceRate: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;
}
