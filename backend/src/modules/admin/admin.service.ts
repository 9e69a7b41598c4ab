import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { hashPassword, verifyPassword } from '../../infra/auth/password';
import { TokenService } from '../../infra/auth/token.service';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { Page } from '../../infra/http/page.dto';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { OutboxMessage } from '../../infra/notifier/outbox-message.entity';
import { publicUser, PublicUser } from '../user/user.service';
import { User } from '../user/user.entity';
import { Admin } from './admin.entity';
import { AdminLoginDto, OutboxQueryDto, UserSearchDto } from './admin.dto';

/**
 * The event an outbox read records (EventStoreService.recordOperatorRead; backend/test/integrity-events.spec.ts
 * matches the operator actions of contracts/src/integrity.ts against the types written inside operators' appends).
 */
export const OUTBOX_READ_EVENT = 'OutboxRead';

@Injectable()
export class AdminService implements OnModuleInit {
  private readonly logger = new Logger('Admin');
  constructor(
    private readonly dataSource: DataSource,
    private readonly tokens: TokenService,
    private readonly rateLimit: RateLimitService,
    private readonly events: EventStoreService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.adminOutboxRead)
      this.logger.warn("ADMIN_OUTBOX_READ is on: operators can read users' messages and their codes at GET /api/admin/outbox (each read is recorded)");
  }

  async login(dto: AdminLoginDto, ip: string): Promise<{ token: string; admin: { id: number; email: string } }> {
    await this.rateLimit.hit(`admin-login:ip:${ip}`, this.config.rateLimits.loginPerIp);
    // Wrong passwords per account, per address and from every address, as user login counts them
    // (RateLimitService.loginGuess): one count for the account alone would let anyone keep the operator locked out.
    let admin = null as Admin | null;
    const { loginPerAccount, loginPerAccountAll } = this.config.rateLimits;
    const guess = await this.rateLimit.loginGuess('admin-login:account', dto.email, ip, loginPerAccount, loginPerAccountAll, async () => {
      admin = await this.dataSource.getRepository(Admin).findOne({ where: { email: dto.email } });
      return admin ? verifyPassword(admin.passwordHash, dto.password) : (await hashPassword(dto.password), false);
    });
    if (guess.outcome === 'locked') throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds: guess.seconds });
    if (guess.outcome === 'wrong' || !admin) throw new BusinessError(ErrorCode.LOGIN_FAILED);
    const checked: Admin = admin;
    // Issued only while the password just checked is still the operator's (the row held until the
    // token is in), as for a user: a rotation of ADMIN_PASSWORD that commits meanwhile, which ends
    // every operator session, refuses this login instead of missing its token.
    const token = await this.dataSource.transaction(async (m) => {
      const [now] = await m.query('SELECT password_hash FROM admins WHERE id = $1 FOR SHARE', [checked.id]);
      if (now?.password_hash !== checked.passwordHash) throw new BusinessError(ErrorCode.LOGIN_FAILED);
      return this.tokens.issue('admin', checked.id, this.config.adminTokenTtlSeconds, m);
    });
    return { token, admin: { id: checked.id, email: checked.email } };
  }

  async users(q: UserSearchDto): Promise<Page<PublicUser & { status: string; inviter_id: number | null }>> {
    const qb = this.dataSource
      .getRepository(User)
      .createQueryBuilder('u')
      .orderBy('u.id', 'DESC')
      .skip((q.page - 1) * q.limit)
      .take(q.limit);
    const s = q.search?.trim();
    if (s) {
      const like = `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      qb.where('(u.account ILIKE :like OR u.phone ILIKE :like OR u.email ILIKE :like OR u.nickname ILIKE :like OR u.invite_code ILIKE :like)', { like });
      if (/^\d{1,9}$/.test(s)) qb.orWhere('u.id = :id', { id: Number(s) });
    }
    const [rows, total] = await qb.getManyAndCount();
    return { items: rows.map((u) => ({ ...publicUser(u), status: u.status, inviter_id: u.inviterId })), total, page: q.page, limit: q.limit };
  }

  /**
   * Users' messages with their text (one-time codes): only with ADMIN_OUTBOX_READ on, and each read
   * recorded with the operator and the messages it showed, in the read's transaction (no unrecorded read).
   */
  async outbox(
    adminId: number,
    q: OutboxQueryDto,
  ): Promise<Page<{ id: string; channel: string; recipient: string; purpose: string; body: string; created_at: Date; sent_at: Date | null }>> {
    if (!this.config.adminOutboxRead) throw new BusinessError(ErrorCode.OUTBOX_READ_OFF);
    const [items, total] = await this.dataSource.transaction(async (m) => {
      const found = await m.getRepository(OutboxMessage).findAndCount({
        where: q.recipient ? { recipient: q.recipient } : {},
        order: { id: 'DESC' },
        skip: (q.page - 1) * q.limit,
        take: q.limit,
      });
      await this.events.recordOperatorRead(m, adminId, OUTBOX_READ_EVENT, {
        recipient: q.recipient ?? null,
        page: q.page,
        limit: q.limit,
        messageIds: found[0].map((o) => o.id),
      });
      return found;
    });
    return {
      items: items.map((o) => ({
        id: o.id,
        channel: o.channel,
        recipient: o.recipient,
        purpose: o.purpose,
        body: o.body,
        created_at: o.createdAt,
        sent_at: o.sentAt,
      })),
      total,
      page: q.page,
      limit: q.limit,
    };
  }
}
