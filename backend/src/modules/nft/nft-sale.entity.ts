import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY } from '../../infra/database/columns';

/**
 * `pending`: the item is reserved for this sale and its payment command (id `nft-sale:<id>`) is
 * on its way or unanswered; `completed`: paid, the buyer owns the item; `released`: the payment
 * was refused, nothing moved, the item is back on sale.
 */
export type NftSaleStatus = 'pending' | 'completed' | 'released';

/** One purchase of one item on one listing; its terms are fixed when the item is reserved. */
@Entity('nft_sales')
@Index('ix_nft_sales_buyer', ['buyerId', 'id'])
@Index('ix_nft_sales_seller', ['sellerId', 'id'])
@Index('ix_nft_sales_item', ['itemId', 'id'])
@Index('ix_nft_sales_status', ['status', 'id'])
@Index('uq_nft_sales_client', ['buyerId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class NftSale {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'item_id', type: 'int' })
  itemId: number;

  @Column({ name: 'collection_id', type: 'int' })
  collectionId: number;

  @Column({ name: 'listing_id', type: 'bigint' })
  listingId: string;

  /** 0 = the house (a primary sale: the proceeds go to the collection's issuer account). */
  @Column({ name: 'seller_id', type: 'int' })
  sellerId: number;

  @Column({ name: 'buyer_id', type: 'int' })
  buyerId: number;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  /** What the buyer pays (700). */
  @Column({ ...MONEY })
  price: string;

  /** price × the collection's fee rate, truncated (701). */
  @Column({ ...MONEY })
  fee: string;

  /** price − fee, to the seller (702). */
  @Column({ ...MONEY })
  proceeds: string;

  @Column({ type: 'varchar', length: 10, default: 'pending' })
  status: NftSaleStatus;

  /** The sequencer's answer that finished it (e.g. `OK`, `INSUFFICIENT_BALANCE`). */
  @Column({ type: 'varchar', length: 32, nullable: true })
  result: string | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;

  @Column({ name: 'settled_at', type: 'timestamptz', nullable: true })
  settledAt: Date | null;
}
