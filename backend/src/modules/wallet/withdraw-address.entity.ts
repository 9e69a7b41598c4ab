import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/** An address in the user's withdrawal address book. */
@Entity('withdraw_addresses')
@Index('uq_withdraw_addresses', ['userId', 'currencyId', 'chain', 'address'], { unique: true })
export class WithdrawAddress {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ type: 'varchar', length: 16 })
  chain: string;

  @Column({ type: 'varchar', length: 200 })
  address: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  remark: string;

  @Column(CREATED_AT)
  createdAt: Date;
}
