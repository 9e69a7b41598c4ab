import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY } from '../../infra/database/columns';

/**
 * `pending` while its freeze is on its way to the sequencer, `active` once frozen, `rejected`
 * when the sequencer refused it (nothing frozen). Settlement: `settled` once its one sequencer
 * posting (refund, payment, new coin) is applied.
 */
export type IeoSubscriptionStatus = 'pending' | 'active' | 'rejected' | 'settled';

/** One subscription: quantity of the new coin asked for, the payment frozen for it, and its allocation. */
@Entity('ieo_subscriptions')
@Index('ix_ieo_subscriptions_project', ['projectId', 'status'])
@Index('ix_ieo_subscriptions_user', ['userId', 'id'])
@Index('uq_ieo_subscriptions_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class IeoSubscription {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'project_id', type: 'int' })
  projectId: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  /** New-coin units asked for. */
  @Column({ ...MONEY })
  quantity: string;

  /** quantity × price, frozen in the purchase currency (103). */
  @Column({ ...MONEY })
  payment: string;

  @Column({ type: 'varchar', length: 12, default: 'pending' })
  status: IeoSubscriptionStatus;

  /** Written at allocation. */
  @Column({ ...MONEY, nullable: true, default: null })
  allocation: string | null;

  @Column({ ...MONEY, nullable: true, default: null })
  paid: string | null;

  @Column({ ...MONEY, nullable: true, default: null })
  refund: string | null;

  /** The sequencer's answer to its settlement posting ("OK", or "OK duplicate" when a retry found it applied). */
  @Column({ name: 'settle_result', type: 'varchar', length: 24, nullable: true })
  settleResult: string | null;

  @Column({ name: 'settled_at', type: 'timestamptz', nullable: true })
  settledAt: Date | null;

  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
