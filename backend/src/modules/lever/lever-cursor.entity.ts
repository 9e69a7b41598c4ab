import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The last mark-price tick of a market the contract watcher has evaluated. */
@Entity('lever_cursors')
export class LeverCursor {
  @PrimaryColumn({ name: 'market_id', type: 'int' })
  marketId: number;

  @Column({ name: 'tick_id', type: 'bigint' })
  tickId: string;
}
