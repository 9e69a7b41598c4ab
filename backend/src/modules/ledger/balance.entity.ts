import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BALANCE } from '../../infra/database/columns';

/**
 * Balance projection, updated in the same transaction as the ledger event that changes it.
 * The CHECK is the last line of defence: only the system's `external` mirror account may be
 * negative (it is minus the money that came in from outside).
 */
@Entity('balances')
@Index('uq_balances_account', ['ownerType', 'ownerId', 'accountType', 'currencyId'], { unique: true })
@Check('ck_balances_non_negative', `account_type = 'external' OR (available >= 0 AND frozen >= 0)`)
export class Balance {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'owner_type', type: 'varchar', length: 16 })
  ownerType: string;

  @Column({ name: 'owner_id', type: 'int' })
  ownerId: number;

  @Column({ name: 'account_type', type: 'varchar', length: 16 })
  accountType: string;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column(BALANCE)
  available: string;

  @Column(BALANCE)
  frozen: string;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
