import { Column, Entity, PrimaryColumn } from 'typeorm';
import { RATE } from '../../infra/database/columns';

/** A pricing currency: how many units of it one USD (= one USDT) buys. Set by operators. */
@Entity('fiat_rates')
export class FiatRate {
  @PrimaryColumn({ type: 'varchar', length: 8 })
  code: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 8 })
  symbol: string;

  @Column({ ...RATE, precision: 24, scale: 8 })
  rate: string;

  @Column({ type: 'int', default: 0 })
  sort: number;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
