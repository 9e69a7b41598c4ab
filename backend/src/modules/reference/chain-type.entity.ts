import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A network a coin can be deposited/withdrawn on. The deposit address is set by an operator. */
@Entity('chain_types')
@Index('uq_chain_types_coin_chain', ['currencyId', 'chain'], { unique: true })
export class ChainType {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ type: 'varchar', length: 16 })
  chain: string;

  /** Empty until an operator configures it: never invented. */
  @Column({ name: 'deposit_address', type: 'varchar', length: 200, default: '' })
  depositAddress: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;
}
