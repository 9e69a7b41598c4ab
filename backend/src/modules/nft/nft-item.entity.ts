import { Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { CREATED_AT, MONEY } from '../../infra/database/columns';

/** The owner id of an item the house (the issuer) holds: no user has id 0. */
export const HOUSE = 0;

/**
 * `held`: owned, not for sale; `listed`: for sale at `price` (listing `listingId`); `reserved`:
 * a buyer's sale (`saleId`) is between its reservation and its payment's answer.
 */
export type NftItemState = 'held' | 'listed' | 'reserved';

/**
 * One NFT. It has exactly one owner at any time (`ownerId`, 0 = the house); every change of its
 * state is a conditional update on (state, owner, listing), so two buyers cannot both reserve it.
 */
@Entity('nft_items')
@Unique('uq_nft_items_token', ['collectionId', 'tokenNo'])
@Index('ix_nft_items_owner', ['ownerId', 'id'])
@Index('ix_nft_items_state', ['state', 'collectionId'])
export class NftItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'collection_id', type: 'int' })
  collectionId: number;

  /** Its number inside the collection (1, 2, …), shown as #n. */
  @Column({ name: 'token_no', type: 'int' })
  tokenNo: number;

  @Column({ type: 'varchar', length: 80 })
  name: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description: string;

  /** The image: an upload owned by the house, served publicly once minted. */
  @Column({ name: 'image_id', type: 'uuid' })
  imageId: string;

  /** Metadata: trait name → value. */
  @Column({ type: 'jsonb', default: () => `'{}'` })
  attributes: Record<string, string>;

  @Column({ name: 'owner_id', type: 'int' })
  ownerId: number;

  @Column({ type: 'varchar', length: 10, default: 'held' })
  state: NftItemState;

  /** The asking price while listed (or reserved), else null. */
  @Column({ ...MONEY, nullable: true, default: null })
  price: string | null;

  @Column({ name: 'listing_id', type: 'bigint', nullable: true })
  listingId: string | null;

  @Column({ name: 'sale_id', type: 'bigint', nullable: true })
  saleId: string | null;

  /** The price of its most recent sale. */
  @Column({ ...MONEY, name: 'last_price', nullable: true, default: null })
  lastPrice: string | null;

  @Column({ name: 'minted_by', type: 'varchar', length: 40 })
  mintedBy: string;

  @Column({ ...CREATED_AT, name: 'minted_at' })
  mintedAt: Date;
}
