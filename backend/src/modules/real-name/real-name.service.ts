import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation, updateReturning } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { alreadyDecided, BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { Page } from '../../infra/http/page.dto';
import { UserMessageService } from '../notice/user-message.service';
import { uploadUrl, UploadService } from '../upload/upload.service';
import { User } from '../user/user.entity';
import { AdvancedVerificationDto, BasicVerificationDto, VerificationQueryDto } from './dto/real-name.dto';
import { IdentityVerification, VerificationLevel } from './identity-verification.entity';

/** What the app shows per level. */
export type VerificationState = 'unverified' | 'review' | 'verified' | 'rejected';

export interface VerificationSummary {
  basic: VerificationState;
  advanced: VerificationState;
  basic_reason: string | null;
  advanced_reason: string | null;
}

type Image = { id: string; url: string } | null;

export interface VerificationView {
  id: number;
  user_id: number;
  account: string | null;
  level: VerificationLevel;
  status: string;
  country: string | null;
  name: string | null;
  id_type: string;
  id_number: string;
  address: string | null;
  front_image: Image;
  back_image: Image;
  hand_image: Image;
  reason: string | null;
  reviewed_by: number | null;
  reviewed_at: string | null;
  created_at: string;
}

const image = (id: string | null): Image => (id ? { id, url: uploadUrl(id) } : null);

/**
 * Identity verification (spec §3–§6): basic (level 1) and advanced (level 2) submissions,
 * reviewed by operators. An approval raises `users.verification_level`, which the rest of the
 * exchange reads (withdrawals, options, loans).
 */
/** The events an operator's read of identity data records (EventStoreService.recordOperatorRead), as `OutboxRead` does for the outbox. */
export const OPERATOR_READ = { list: 'IdentityVerificationsListed', detail: 'IdentityVerificationRead' } as const;

@Injectable()
export class RealNameService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
    private readonly uploads: UploadService,
    private readonly messages: UserMessageService,
  ) {}

  /** The state of each level: its newest submission, or unverified. */
  async summary(userId: number): Promise<VerificationSummary> {
    const rows: Array<{ level: number; status: VerificationState; reason: string | null }> = await this.dataSource.query(
      'SELECT DISTINCT ON (level) level, status, reason FROM identity_verifications WHERE user_id = $1 ORDER BY level, id DESC',
      [userId],
    );
    const of = (level: number) => rows.find((r) => r.level === level);
    const basic = of(1);
    const advanced = of(2);
    return {
      basic: basic?.status ?? 'unverified',
      advanced: advanced?.status ?? 'unverified',
      basic_reason: basic?.status === 'rejected' ? basic.reason : null,
      advanced_reason: advanced?.status === 'rejected' ? advanced.reason : null,
    };
  }

  submitBasic(userId: number, dto: BasicVerificationDto): Promise<VerificationSummary> {
    return this.submit(userId, 1, {
      country: dto.country,
      name: dto.name,
      idType: 'id_card',
      idNumber: dto.id_number,
      address: dto.address,
      frontImage: dto.front_image,
      backImage: dto.back_image,
      handImage: dto.hand_image,
    });
  }

  submitAdvanced(userId: number, dto: AdvancedVerificationDto): Promise<VerificationSummary> {
    return this.submit(userId, 2, {
      country: null,
      name: null,
      idType: dto.id_type,
      idNumber: dto.id_number,
      address: null,
      frontImage: dto.front_image,
      backImage: dto.back_image ?? null,
      handImage: dto.hand_image,
    });
  }

  private async submit(
    userId: number,
    level: VerificationLevel,
    fields: Pick<IdentityVerification, 'country' | 'name' | 'idType' | 'idNumber' | 'address' | 'frontImage' | 'backImage' | 'handImage'>,
  ): Promise<VerificationSummary> {
    const images = [fields.frontImage, fields.backImage, fields.handImage].filter((x): x is string => x !== null).map((x) => x.toLowerCase());
    if (new Set(images).size !== images.length) throw new BusinessError(ErrorCode.VALIDATION, 'kyc.images_distinct');
    await this.dataSource.transaction(async (m) => {
      if (level === 2) {
        const user = await m.getRepository(User).findOne({ where: { id: userId }, select: { id: true, verificationLevel: true } });
        if (!user || user.verificationLevel < 1) throw new BusinessError(ErrorCode.KYC_BASIC_REQUIRED);
      }
      await this.refuseWhileOpen(m, userId, level);
      for (const id of images) await this.uploads.claim(m, userId, id);
      // Different pictures, not only different uploads: one photo uploaded three times is one photo.
      const [{ photos, distinct }]: Array<{ photos: number; distinct: number }> = await m.query(
        'SELECT count(sha256)::int AS photos, count(DISTINCT sha256)::int AS distinct FROM uploads WHERE id = ANY($1::uuid[])',
        [images],
      );
      if (photos !== distinct) throw new BusinessError(ErrorCode.VALIDATION, 'kyc.images_distinct');
      let saved: IdentityVerification;
      try {
        await m.query('SAVEPOINT kyc_submit');
        saved = await m.getRepository(IdentityVerification).save(m.getRepository(IdentityVerification).create({ userId, level, status: 'review', ...fields }));
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        // A concurrent submission for the same level got in first.
        await m.query('ROLLBACK TO SAVEPOINT kyc_submit');
        await this.refuseWhileOpen(m, userId, level);
        throw err;
      }
      // Personal data stays in the table (where it can be erased); the event log keeps the facts.
      await this.events.append(m, { streamId: `kyc:${saved.id}`, expectedVersion: 0, metadata: { actor: `user:${userId}` } }, [
        { type: 'IdentityVerificationSubmitted', payload: { verificationId: saved.id, userId, level, idType: fields.idType, images } },
      ]);
    });
    return this.summary(userId);
  }

  /** Refuses a new submission while the level is under review or already verified. */
  private async refuseWhileOpen(m: EntityManager, userId: number, level: VerificationLevel): Promise<void> {
    const open = await m.getRepository(IdentityVerification).findOne({
      where: [
        { userId, level, status: 'review' },
        { userId, level, status: 'verified' },
      ],
    });
    if (open?.status === 'review') throw new BusinessError(ErrorCode.KYC_UNDER_REVIEW);
    if (open?.status === 'verified') throw new BusinessError(ErrorCode.KYC_ALREADY_VERIFIED);
  }

  // ---- operators ----

  /** An operator's page of the queue or history: names, ID numbers and addresses, so the read is recorded (`IdentityVerificationsListed`, stream `admin:<id>`). */
  async list(adminId: number, q: VerificationQueryDto): Promise<Page<VerificationView>> {
    return this.dataSource.transaction(async (m) => {
      const qb = m
        .getRepository(IdentityVerification)
        .createQueryBuilder('v')
        .leftJoin(User, 'u', 'u.id = v.user_id')
        .addSelect('u.account', 'account')
        // The review queue is worked oldest first; history reads newest first.
        .orderBy('v.id', q.status === 'review' ? 'ASC' : 'DESC')
        .offset((q.page - 1) * q.limit)
        .limit(q.limit);
      if (q.status) qb.andWhere('v.status = :status', { status: q.status });
      if (q.level) qb.andWhere('v.level = :level', { level: q.level });
      if (q.user_id !== undefined) qb.andWhere('v.user_id = :userId', { userId: q.user_id });
      const { entities, raw } = await qb.getRawAndEntities<{ account: string | null }>();
      const total = await qb.getCount();
      await this.events.recordOperatorRead(m, adminId, OPERATOR_READ.list, { verificationIds: entities.map((v) => v.id), page: q.page, limit: q.limit });
      return { items: entities.map((v, i) => view(v, raw[i]?.account ?? null)), total, page: q.page, limit: q.limit };
    });
  }

  /**
   * One submission with its photo URLs, plus other accounts that submitted the same ID number, dashes
   * aside ("AB-1001234" is "AB1001234": the form takes dashes anywhere inside a number).
   */
  async detail(adminId: number, id: number): Promise<VerificationView & { same_id_number_user_ids: number[] }> {
    return this.dataSource.transaction(async (m) => {
      const v = await m.getRepository(IdentityVerification).findOne({ where: { id } });
      if (!v) throw new BusinessError(ErrorCode.KYC_NOT_FOUND);
      const user = await m.getRepository(User).findOne({ where: { id: v.userId }, select: { id: true, account: true } });
      const same: Array<{ user_id: number }> = await m.query(
        `SELECT DISTINCT user_id FROM identity_verifications
         WHERE replace(id_number, '-', '') = replace($1, '-', '') AND user_id <> $2 AND status <> 'rejected' ORDER BY user_id LIMIT 20`,
        [v.idNumber, v.userId],
      );
      await this.events.recordOperatorRead(m, adminId, OPERATOR_READ.detail, { verificationId: id, userId: v.userId });
      return { ...view(v, user?.account ?? null), same_id_number_user_ids: same.map((r) => r.user_id) };
    });
  }

  async approve(adminId: number, id: number, note?: string): Promise<VerificationView> {
    return this.decide(adminId, id, 'verified', note ?? null);
  }

  async reject(adminId: number, id: number, reason: string): Promise<VerificationView> {
    return this.decide(adminId, id, 'rejected', reason);
  }

  /**
   * One transaction: the conditional update (only from `review`, so of two concurrent decisions
   * exactly one applies), the level on approval, the event with the operator and reason, and
   * the user's message.
   */
  private async decide(adminId: number, id: number, status: 'verified' | 'rejected', reason: string | null): Promise<VerificationView> {
    return this.dataSource.transaction(async (m) => {
      const [row] = await updateReturning<{ user_id: number; level: VerificationLevel }>(
        m,
        `UPDATE identity_verifications SET status = $2, reason = $3, reviewed_by = $4, reviewed_at = now()
         WHERE id = $1 AND status = 'review' RETURNING user_id, level`,
        [id, status, status === 'rejected' ? reason : null, adminId],
      );
      if (!row) {
        const decided = await m.getRepository(IdentityVerification).findOne({ where: { id }, select: { status: true, reviewedBy: true, reviewedAt: true } });
        if (!decided) throw new BusinessError(ErrorCode.KYC_NOT_FOUND);
        throw alreadyDecided(ErrorCode.KYC_ALREADY_DECIDED, decided);
      }
      const { user_id: userId, level } = row;
      if (status === 'verified') {
        await m.query('UPDATE users SET verification_level = GREATEST(verification_level, $2) WHERE id = $1', [userId, level]);
      }
      const type = status === 'verified' ? 'IdentityVerificationApproved' : 'IdentityVerificationRejected';
      const eventReason = reason ?? 'approved';
      await this.events.append(m, { streamId: `kyc:${id}`, metadata: { actor: `admin:${adminId}`, reason: eventReason } }, [
        { type, payload: { verificationId: id, userId, level, adminId, reason: eventReason } },
      ]);
      if (status === 'verified') await this.messages.leave(m, userId, 'notice.kyc_approved', { level: String(level) }, `kyc:${id}`);
      else await this.messages.leave(m, userId, 'notice.kyc_rejected', { level: String(level), reason: reason ?? '' }, `kyc:${id}`);
      const saved = await m.getRepository(IdentityVerification).findOneOrFail({ where: { id } });
      return view(saved, null);
    });
  }
}

function view(v: IdentityVerification, account: string | null): VerificationView {
  return {
    id: v.id,
    user_id: v.userId,
    account,
    level: v.level,
    status: v.status,
    country: v.country,
    name: v.name,
    id_type: v.idType,
    id_number: v.idNumber,
    address: v.address,
    front_image: image(v.frontImage),
    back_image: image(v.backImage),
    hand_image: image(v.handImage),
    reason: v.reason,
    reviewed_by: v.reviewedBy,
    reviewed_at: v.reviewedAt ? new Date(v.reviewedAt).toISOString() : null,
    created_at: new Date(v.createdAt).toISOString(),
  };
}
