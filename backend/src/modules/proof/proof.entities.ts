import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/** A user's 32-byte salt for the proof of liabilities: created once, shown only to that user. */
@Entity('proof_salts')
export class ProofSalt {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  userId: number;

  /** Lowercase hex (64 digits). */
  @Column({ type: 'varchar', length: 64 })
  salt: string;

  @Column(CREATED_AT)
  createdAt: Date;
}

/** A published root of the Merkle sum tree: kept for ever (issue "Verifiable honesty"). */
@Entity('proof_roots')
export class ProofRootRow {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  /** Lowercase hex (64 digits). */
  @Column({ type: 'varchar', length: 64 })
  root: string;

  /** Currency ids, in the order of every amount list. */
  @Column({ type: 'jsonb' })
  currencies: number[];

  /** Units (1e-18) per currency as decimal strings: the sum of every user's balances. */
  @Column({ type: 'jsonb' })
  totals: string[];

  /** The journal batch the read tables reflected (`sequencer_projection.seq`). */
  @Column({ name: 'watermark_seq', type: 'bigint' })
  watermarkSeq: string;

  /** The highest ledger entry id in the same snapshot. */
  @Column({ name: 'watermark_entry_id', type: 'bigint' })
  watermarkEntryId: string;

  @Column({ name: 'leaf_count', type: 'int' })
  leafCount: number;

  /** startup, daily or operator. */
  @Column({ type: 'varchar', length: 16 })
  trigger: string;

  /** `system:proof` or `admin:<id>`. */
  @Column({ type: 'varchar', length: 64 })
  actor: string;

  @Column(CREATED_AT)
  createdAt: Date;
}

/** One leaf of a root's tree (its position in the tree, the user, the balances in units): enough to rebuild every proof. */
@Entity('proof_leaves')
@Index('ix_proof_leaves_user', ['userId', 'rootId'])
export class ProofLeaf {
  @PrimaryColumn({ name: 'root_id', type: 'bigint' })
  rootId: string;

  @PrimaryColumn({ type: 'int' })
  position: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  /** Units (1e-18) per currency as decimal strings, in the root's currency order. */
  @Column({ type: 'jsonb' })
  balances: string[];
}
