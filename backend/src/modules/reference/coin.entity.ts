import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MONEY } from '../../infra/database/columns';

/** A currency. Ids are fixed by the spec (BTC 1, ETH 2, USDT 3). */
@Entity('coins')
export class Coin {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ type: 'varchar', length: 16, unique: true })
  symbol: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** Decimals shown to users (amounts are truncated to these). */
  @Column({ name: 'display_decimals', type: 'smallint' })
  displayDecimals: number;

  @Column({ ...MONEY, name: 'min_deposit' })
  minDeposit: string;

  @Column({ ...MONEY, name: 'min_withdraw' })
  minWithdraw: string;

  @Column({ ...MONEY, name: 'withdraw_fee' })
  withdrawFee: string;

  @Column({ type: 'int', default: 0 })
  sort: number;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;
}
