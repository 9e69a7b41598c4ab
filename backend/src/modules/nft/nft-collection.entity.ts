import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, RATE } from '../../infra/database/columns';

/** A collection of NFTs, created by an operator. Its fee rate applies to every sale of its items. */
@Entity('nft_collections')
export class NftCollection {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 80, unique: true })
  name: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description: string;

  /** The currency items are priced and paid in (USDT). */
  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  /** Share of each sale's price that goes to the fee account (701); the seller gets the rest (702). */
  @Column({ ...RATE, name: 'fee_rate' })
  feeRate: string;

  /** Who created it: `admin:<id>` or `system:demo`. */
  @Column({ name: 'created_by', type: 'varchar', length: 40 })
  createdBy: string;

  @Column(CREATED_AT)
  createdAt: Date;
}
