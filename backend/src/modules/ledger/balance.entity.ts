import { Check, Column, ColumnOptions, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A balance is a sum of postings, each below 10^18 whole units, with no bound of its own: unbounded
 * numeric (migration BalancesUnbounded; numeric(36,18) stopped the projection for good at 10^18).
 */
export const BALANCE: ColumnOptions = { type: 'numeric', default: 0 };
/** A balance after a posting kept in another row (a spot trade's, a spot order's): null on rows projected before it was stored there. */
export const BALANCE_OR_NULL: ColumnOptions = { type: 'numeric', nullable: true };

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
