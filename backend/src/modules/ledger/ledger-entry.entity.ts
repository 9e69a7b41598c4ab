import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BALANCE, CREATED_AT, MONEY } from '../../infra/database/columns';

/** Read model of every balance change (one row per account touched by a ledger event). */
@Entity('ledger_entries')
// One index besides the key: the hottest table on the order path (~6 rows per order) is read by owner only.
// Integers only (the owner's type is checked on the rows found): a text column made every insert compare collated text.
@Index('ix_ledger_entries_account', ['ownerId', 'currencyId', 'id'])
export class LedgerEntry {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'event_seq', type: 'bigint' })
  eventSeq: string;

  @Column({ name: 'owner_type', type: 'varchar', length: 16 })
  ownerType: string;

  @Column({ name: 'owner_id', type: 'int' })
  ownerId: number;

  @Column({ name: 'account_type', type: 'varchar', length: 16 })
  accountType: string;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column({ type: 'int' })
  code: number;

  @Column({ ...MONEY, name: 'available_delta' })
  availableDelta: string;

  @Column({ ...MONEY, name: 'frozen_delta' })
  frozenDelta: string;

  // The account's balance after the entry: unbounded, as the balance (its change is numeric(36,18)).
  @Column({ ...BALANCE, name: 'available_after' })
  availableAfter: string;

  @Column({ ...BALANCE, name: 'frozen_after' })
  frozenAfter: string;

  @Column({ name: 'ref_type', type: 'varchar', length: 32 })
  refType: string;

  @Column({ name: 'ref_id', type: 'varchar', length: 64 })
  refId: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  memo: string;

  @Column(CREATED_AT)
  createdAt: Date;
}
