import { Column, Entity, PrimaryColumn } from 'typeorm';
import { BALANCE } from '../../infra/database/columns';

/** One candle, written only from trades. */
@Entity('klines')
export class Kline {
  @PrimaryColumn({ name: 'market_id', type: 'int' })
  marketId: number;

  /** 1min, 5min, 30min, 60min, 1day, 1week, 1mon (time-share reads 1min). */
  @PrimaryColumn({ type: 'varchar', length: 8 })
  period: string;

  @PrimaryColumn({ name: 'open_time', type: 'timestamptz' })
  openTime: Date;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  open: string;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  high: string;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  low: string;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  close: string;

  /** Sums of trades' amounts, each below 10^18 but not their sum: unbounded, as a balance (migration KlineVolumesUnbounded). */
  @Column({ ...BALANCE })
  volume: string;

  @Column({ ...BALANCE, name: 'quote_volume' })
  quoteVolume: string;

  /** Can pass 2^31 in a busy market's month: `bigint`, read as text. */
  @Column({ type: 'bigint', default: 0 })
  trades: string;
}
