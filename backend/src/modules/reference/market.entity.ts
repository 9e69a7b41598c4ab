import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { MONEY, RATE } from '../../infra/database/columns';

@Entity('markets')
export class Market {
  @PrimaryGeneratedColumn()
  id: number;

  /** e.g. "BTC/USDT". */
  @Column({ type: 'varchar', length: 32, unique: true })
  symbol: string;

  @Column({ name: 'base_currency_id', type: 'int' })
  baseCurrencyId: number;

  @Column({ name: 'quote_currency_id', type: 'int' })
  quoteCurrencyId: number;

  @Column({ ...MONEY, name: 'tick_size' })
  tickSize: string;

  @Column({ ...MONEY, name: 'lot_size' })
  lotSize: string;

  @Column({ ...MONEY, name: 'min_qty' })
  minQty: string;

  @Column({ ...RATE, name: 'maker_fee' })
  makerFee: string;

  @Column({ ...RATE, name: 'taker_fee' })
  takerFee: string;

  @Column({ type: 'int', default: 0 })
  sort: number;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;
}
