import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT, MONEY, RATE } from '../../infra/database/columns';

/** A sum over every subscription: no bound of its own (a migration lifted numeric(36,18), 1795770000000). */
const TOTAL = { type: 'numeric' as const };

/**
 * Internal status: `open` until the allocation job closes it (subscriptions are taken while
 * `start_at <= now < end_at`), `ended` (closed, no more subscriptions), `allocated` (allocations
 * written and published, settlement under way), `distributed` (every subscription settled).
 * The states users see (not yet open / in progress / ended / distributed) follow from it and the clock.
 */
export type IeoStatus = 'open' | 'ended' | 'allocated' | 'distributed';

/** A new-coin subscription (IEO) project. Operators create and edit it (each change an event). */
@Entity('ieo_projects')
export class IeoProject {
  @PrimaryGeneratedColumn()
  id: number;

  /** The new currency (a row of `coins`, created with the project). */
  @Column({ name: 'coin_id', type: 'int', unique: true })
  coinId: number;

  /** The purchase currency (e.g. USDT): what subscribers pay with, from their trade account. */
  @Column({ name: 'currency_id', type: 'int' })
  currencyId: number;

  /** Price of one new coin in the purchase currency. */
  @Column({ ...MONEY })
  price: string;

  /** Total issued: what the issuer's account holds for this project (funded from `external` at creation). */
  @Column({ ...MONEY })
  supply: string;

  @Column({ name: 'start_at', type: 'timestamptz' })
  startAt: Date;

  @Column({ name: 'end_at', type: 'timestamptz' })
  endAt: Date;

  /** Per-user minimum of one subscription and maximum of all of theirs, in new-coin units. */
  @Column({ ...MONEY, name: 'min_qty' })
  minQty: string;

  @Column({ ...MONEY, name: 'max_qty' })
  maxQty: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  website: string;

  @Column({ name: 'white_paper', type: 'varchar', length: 255, default: '' })
  whitePaper: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  intro: string;

  @Column({ type: 'varchar', length: 12, default: 'open' })
  status: IeoStatus;

  /** Published at allocation: totals only, never a subscriber's amount or identity. */
  @Column({ ...TOTAL, nullable: true, default: null })
  requested: string | null;

  @Column({ ...MONEY, nullable: true, default: null })
  allocated: string | null;

  /** min(requested, supply) − allocated: lost to truncation, stays with the issuer. */
  @Column({ ...MONEY, nullable: true, default: null })
  remainder: string | null;

  /** supply / requested (1 when not oversubscribed), truncated to 8 decimals; for display. */
  @Column({ ...RATE, nullable: true, default: null })
  ratio: string | null;

  /** Payments frozen, refunded and kept (in the purchase currency). */
  @Column({ ...TOTAL, nullable: true, default: null })
  payments: string | null;

  @Column({ ...TOTAL, nullable: true, default: null })
  refunded: string | null;

  @Column({ ...TOTAL, nullable: true, default: null })
  proceeds: string | null;

  @Column({ type: 'int', nullable: true })
  subscribers: number | null;

  @Column({ name: 'allocated_at', type: 'timestamptz', nullable: true })
  allocatedAt: Date | null;

  @Column({ name: 'distributed_at', type: 'timestamptz', nullable: true })
  distributedAt: Date | null;

  /** The spot market listed for the new coin after distribution, if any. */
  @Column({ name: 'market_id', type: 'int', nullable: true })
  marketId: number | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
