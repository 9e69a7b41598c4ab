import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

export type VerificationLevel = 1 | 2;
/** A submission's state; "unverified" is the absence of any submission for the level. */
export type VerificationStatus = 'review' | 'verified' | 'rejected';
export type IdType = 'id_card' | 'passport' | 'driving_licence';

/**
 * One identity-verification submission (level 1 basic, level 2 advanced). A rejected one stays as
 * history; the user submits again as a new row. At most one row per user and level is under
 * review or verified (the partial unique index), so concurrent submissions cannot both land.
 */
@Entity('identity_verifications')
@Index('uq_identity_verifications_open', ['userId', 'level'], { unique: true, where: "status <> 'rejected'" })
@Index('ix_identity_verifications_user', ['userId', 'level', 'id'])
@Index('ix_identity_verifications_status', ['status', 'level', 'id'])
export class IdentityVerification {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'smallint' })
  level: VerificationLevel;

  @Column({ type: 'varchar', length: 16 })
  status: VerificationStatus;

  /** Basic: the country the user named. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  country: string | null;

  /** Basic: full name. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  name: string | null;

  /** Advanced: the document type; basic uses the national ID. */
  @Column({ name: 'id_type', type: 'varchar', length: 16 })
  idType: IdType;

  /** Upper-cased, spaces removed. */
  @Column({ name: 'id_number', type: 'varchar', length: 32 })
  idNumber: string;

  /** Basic: contact address. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  address: string | null;

  @Column({ name: 'front_image', type: 'uuid' })
  frontImage: string;

  /** Absent for a passport (advanced). */
  @Column({ name: 'back_image', type: 'uuid', nullable: true })
  backImage: string | null;

  @Column({ name: 'hand_image', type: 'uuid' })
  handImage: string;

  /** Rejection reason shown to the user (an approval note stays in the event). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  reason: string | null;

  @Column({ name: 'reviewed_by', type: 'int', nullable: true })
  reviewedBy: number | null;

  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
