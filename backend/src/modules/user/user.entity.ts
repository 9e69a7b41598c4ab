import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

@Entity('users')
@Index('uq_users_phone', ['areaCode', 'phone'], { unique: true, where: 'phone IS NOT NULL' })
@Index('uq_users_email', ['email'], { unique: true, where: 'email IS NOT NULL' })
@Index('uq_users_invite_code', ['inviteCode'], { unique: true })
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  /** What the user registered with (the phone number or e-mail), shown as "account". */
  @Column({ type: 'varchar', length: 200 })
  account: string;

  @Column({ name: 'area_code', type: 'varchar', length: 8, nullable: true })
  areaCode: string | null;

  /** National number, digits only. */
  @Column({ type: 'varchar', length: 20, nullable: true })
  phone: string | null;

  /** Lower-cased. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  email: string | null;

  @Column({ type: 'varchar', length: 64 })
  nickname: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 200 })
  passwordHash: string;

  @Column({ name: 'fund_password_hash', type: 'varchar', length: 200, nullable: true })
  fundPasswordHash: string | null;

  @Column({ name: 'invite_code', type: 'varchar', length: 12 })
  inviteCode: string;

  /** The referral link: who invited this user. */
  @Column({ name: 'inviter_id', type: 'int', nullable: true })
  inviterId: number | null;

  /** When a user who registered without an inviter bound one (user/bind_auth_code); null: at registration, or never. */
  @Column({ name: 'invited_at', type: 'timestamptz', nullable: true })
  invitedAt: Date | null;

  /** 0 unverified, 1 basic, 2 advanced. */
  @Column({ name: 'verification_level', type: 'smallint', default: 0 })
  verificationLevel: number;

  @Column({ type: 'varchar', length: 4, default: 'en' })
  lang: string;

  @Column({ type: 'varchar', length: 16, default: 'active' })
  status: string;

  @Column(CREATED_AT)
  createdAt: Date;
}
