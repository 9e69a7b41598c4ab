import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** The mark price sampled each second: contracts and options settle on these ticks, by id. */
@Entity('mark_prices')
@Index('ix_mark_prices_market_time', ['marketId', 'ts'])
export class MarkPrice {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'market_id', type: 'int' })
  marketId: number;

  @Column({ type: 'numeric', precision: 36, scale: 18 })
  price: string;

  @Column({ type: 'timestamptz' })
  ts: Date;

  /** `sample` (the once-a-second sampler) or `deal` (recorded when a user dealt at the price now); only samples deliver options. */
  @Column({ type: 'varchar', length: 8, default: 'sample' })
  source: 'sample' | 'deal';
}
