import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY, RATE } from '../../infra/database/columns';

/** A user an operator made a partner (exclusive promoter): a higher rebate ratio and an authorization code. */
@Entity('promotion_partners')
@Index('uq_promotion_partners_auth_code', ['authCode'], { unique: true })
export class PromotionPartner {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'boolean', default: true })
  partner: boolean;

  /** The code a user enters (user/bind_auth_code) to become this partner's sub-account. */
  @Column({ name: 'auth_code', type: 'varchar', length: 12 })
  authCode: string;

  @Column({ type: 'varchar', length: 255 })
  reason: string;

  @Column({ name: 'updated_by', type: 'int' })
  updatedBy: number;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/**
 * One rebate per fee: `source_entry` is the ledger entry of the invitee's fee (unique, so a fee
 * is rebated once). `pending` until the settlement posts it (ledger code 905), then `paid`.
 */
@Entity('promotion_rebates')
@Index('uq_promotion_rebates_source', ['sourceEntry'], { unique: true })
@Index('ix_promotion_rebates_inviter', ['inviterId', 'id'])
@Index('ix_promotion_rebates_status', ['status', 'id'])
export class PromotionRebate {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'source_entry', type: 'bigint' })
  sourceEntry: string;

  @Column({ name: 'inviter_id', type: 'int' })
  inviterId: number;

  @Column({ name: 'invitee_id', type: 'int' })
  inviteeId: number;

  /** spot | contract | option */
  @Column({ type: 'varchar', length: 8 })
  kind: string;

  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  @Column(MONEY)
  fee: string;

  @Column(RATE)
  ratio: string;

  @Column(MONEY)
  amount: string;

  @Column({ type: 'varchar', length: 8, default: 'pending' })
  status: string;

  @Column({ name: 'paid_at', type: 'timestamptz', nullable: true })
  paidAt: Date | null;

  @Column(CREATED_AT)
  createdAt: Date;
}

/** How far the accrual has read the ledger (one row, id 1). */
@Entity('promotion_cursor')
export class PromotionCursor {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ name: 'entry_id', type: 'bigint' })
  entryId: string;
}

/** Where the accrual's cursor over a source stood, and when (its re-read goes back a time, not a count of ids). */
@Entity('promotion_cursor_marks')
@Index('ix_promotion_cursor_marks_source_at', ['source', 'at'])
export class PromotionCursorMark {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'int' })
  source: number;

  @Column({ name: 'entry_id', type: 'bigint' })
  entryId: string;

  @Column({ type: 'timestamptz' })
  at: Date;
}
