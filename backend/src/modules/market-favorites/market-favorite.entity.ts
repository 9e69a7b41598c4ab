import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/** One market a user marked as a favourite on the Markets tab (by market id: a renamed symbol keeps it). */
@Entity('market_favorites')
export class MarketFavorite {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  userId: number;

  @PrimaryColumn({ name: 'market_id', type: 'int' })
  marketId: number;

  @Column(CREATED_AT)
  createdAt: Date;
}
