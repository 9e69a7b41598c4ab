import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY } from '../../infra/database/columns';

/** `active` while the item is for sale on it; then `sold`, or `withdrawn` by its seller (or replaced by a new price). */
export type NftListingStatus = 'active' | 'sold' | 'withdrawn';

/** An offer to sell one item at a price: by its owner (nft/sell), or by the house (the operator's primary price). */
@Entity('nft_listings')
@Index('ix_nft_listings_seller', ['sellerId', 'id'])
@Index('ix_nft_listings_item', ['itemId', 'id'])
export class NftListing {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'item_id', type: 'int' })
  itemId: number;

  /** The owner when listed (0 = the house: a primary sale). */
  @Column({ name: 'seller_id', type: 'int' })
  sellerId: number;

  @Column({ ...MONEY })
  price: string;

  @Column({ type: 'varchar', length: 10, default: 'active' })
  status: NftListingStatus;

  @Column(CREATED_AT)
  createdAt: Date;

  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true })
  closedAt: Date | null;
}
