import { Inject, Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { hashPassword, verifyPassword } from '../../infra/auth/password';
import { TokenService } from '../../infra/auth/token.service';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { isUniqueViolation } from '../../infra/database/sql';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { NotLoggedInError } from '../../infra/http/not-logged-in.error';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { Lang } from '../../infra/i18n/catalogue';
import { normalizeEmail, normalizePhone, phoneTarget } from '../verification-code/contact';
import { VerificationCodeService } from '../verification-code/verification-code.service';
import { ContactDto } from './dto/credentials.dto';
import { FundPasswordDto, LoginDto, UpdatePasswordDto } from './dto/account.dto';
import { ForgetDto, RegisterDto } from './dto/register.dto';
import { User } from './user.entity';

const INVITE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const EMAIL_RE = /@/;

/** How an account is found by its contact. */
export type ContactWhere = { areaCode?: string; phone?: string; email?: string };

export interface PublicUser {
  id: number;
  account: string;
  nickname: string;
  area_code: string | null;
  phone: string | null;
  email: string | null;
  invite_code: string;
  verification_level: number;
  has_fund_password: boolean;
  lang: string;
  created_at: string;
}

export function publicUser(u: User): PublicUser {
  return {
    id: u.id,
    account: u.account,
    nickname: u.nickname,
    area_code: u.areaCode,
    phone: u.phone,
    email: u.email,
    invite_code: u.inviteCode,
    verification_level: u.verificationLevel,
    has_fund_password: u.fundPasswordHash !== null,
    lang: u.lang,
    created_at: new Date(u.createdAt).toISOString(),
  };
}

/** Accounts: registration, login, recovery, passwords and the profile (spec §5). */
@Injectable()
export class UserService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly codes: VerificationCodeService,
    private readonly tokens: TokenService,
    private readonly events: EventStoreService,
    private readonly rateLimit: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get users() {
    return this.dataSource.getRepository(User);
  }

  /** The code target and lookup for the phone or e-mail route. */
  contactOf(dto: ContactDto): { channel: 'sms' | 'email'; target: string; where: ContactWhere } {
    if (dto.type === 'phone')
      return { channel: 'sms', target: phoneTarget(dto.area_code!, dto.phone!), where: { areaCode: dto.area_code!, phone: dto.phone! } };
    return { channel: 'email', target: dto.email!, where: { email: dto.email! } };
  }

  async exists(where: ContactWhere): Promise<boolean> {
    return (await this.users.count({ where })) > 0;
  }

  /**
   * Whether an account exists, for every public answer that tells (the lookups, sending a code to
   * register or recover, the password reset): all limited by one count per IP
   * (RATE_LIMIT_LOOKUP_IP), so accounts cannot be listed in bulk through any of them.
   */
  async registered(where: ContactWhere, ip: string): Promise<{ registered: boolean }> {
    await this.countLookup(ip);
    return { registered: await this.exists(where) };
  }

  /** One account lookup from `ip` against RATE_LIMIT_LOOKUP_IP (1002 once over). */
  private countLookup(ip: string): Promise<void> {
    return this.rateLimit.hit(`lookup:ip:${ip}`, this.config.rateLimits.lookupPerIp);
  }

  async findById(id: number): Promise<User> {
    const user = await this.users.findOne({ where: { id } });
    if (!user) throw new BusinessError(ErrorCode.ACCOUNT_NOT_FOUND);
    return user;
  }

  async register(dto: RegisterDto, ip: string, lang: Lang): Promise<{ token: string; user: PublicUser }> {
    await this.rateLimit.hit(`register:ip:${ip}`, this.config.rateLimits.registerPerIp);
    if (dto.password !== dto.re_password) throw new BusinessError(ErrorCode.PASSWORDS_DIFFER);
    if (dto.agreement !== true) throw new BusinessError(ErrorCode.AGREEMENT_REQUIRED);
    const contact = this.contactOf(dto);
    // 1105 says whether the account exists, before any code is checked: counted as the other lookups are.
    await this.countLookup(ip);
    if (await this.exists(contact.where)) throw new BusinessError(ErrorCode.ACCOUNT_EXISTS);
    let inviterId: number | null = null;
    if (dto.invite_code) {
      const inviter = await this.users.findOne({ where: { inviteCode: dto.invite_code.trim().toUpperCase() } });
      if (!inviter) throw new BusinessError(ErrorCode.INVITE_CODE_INVALID);
      inviterId = inviter.id;
    }
    const codeId = await this.codes.check(contact.target, 'register', dto.code, ip);
    const passwordHash = await hashPassword(dto.password);

    return this.dataSource.transaction(async (m) => {
      await this.codes.consume(m, codeId);
      const account = dto.type === 'phone' ? dto.phone! : dto.email!;
      let user: User | undefined;
      for (let attempt = 0; !user; attempt++) {
        try {
          await m.query('SAVEPOINT new_user');
          user = await m.getRepository(User).save(
            m.getRepository(User).create({
              account,
              areaCode: dto.type === 'phone' ? dto.area_code! : null,
              phone: dto.type === 'phone' ? dto.phone! : null,
              email: dto.type === 'email' ? dto.email! : null,
              nickname: dto.nickname?.trim() || defaultNickname(account),
              passwordHash,
              inviteCode: inviteCode(),
              inviterId,
              lang,
            }),
          );
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
          await m.query('ROLLBACK TO SAVEPOINT new_user');
          // Same account registered concurrently, or (rarely) an invite code collision: retry that one.
          if (await m.getRepository(User).count({ where: contact.where })) throw new BusinessError(ErrorCode.ACCOUNT_EXISTS);
          if (attempt >= 5) throw err;
        }
      }
      await this.events.append(m, { streamId: `user:${user.id}`, expectedVersion: 0, metadata: { actor: `user:${user.id}` } }, [
        { type: 'UserRegistered', payload: { userId: user.id, route: dto.type, account, inviterId, lang } },
      ]);
      const token = await this.tokens.issue('user', user.id, this.config.userTokenTtlSeconds, m);
      return { token, user: publicUser(user) };
    });
  }

  async login(dto: LoginDto, ip: string): Promise<{ token: string; user: PublicUser }> {
    const account = loginAccount(dto.account);
    await this.rateLimit.hit(`login:ip:${ip}`, this.config.rateLimits.loginPerIp);
    // Wrong passwords per account, per address and from every address (RateLimitService.loginGuess):
    // the account found, so every spelling of it shares one count (with or without its calling code)
    // and two accounts never do (one number in two countries had one count: guesses at one spent the
    // other's); an account not found by its spelling (every spelling of one phone number is one).
    const user = await this.findForLogin(account, dto.area_code);
    const { loginPerAccount, loginPerAccountAll } = this.config.rateLimits;
    // Prefixed apart: no spelling ("user:5") names an account's count.
    const counted = user ? `user:${user.id}` : `spelled:${account.email ?? account.phone!}`;
    const guess = await this.rateLimit.loginGuess('login:account', counted, ip, loginPerAccount, loginPerAccountAll, async () =>
      // Hash anyway when the account is unknown, so timing does not reveal which accounts exist.
      user ? verifyPassword(user.passwordHash, dto.password) : (await hashPassword(dto.password), false),
    );
    if (guess.outcome === 'locked') throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds: guess.seconds });
    if (guess.outcome === 'wrong' || !user) throw new BusinessError(ErrorCode.LOGIN_FAILED);
    if (user.status !== 'active') throw new BusinessError(ErrorCode.ACCOUNT_DISABLED);
    const checked = user;
    const token = await this.dataSource.transaction(async (m) => {
      // Issued only while the password just checked is still the account's (the row held until the
      // token is in): a reset or change that commits meanwhile, which ends every session, refuses this
      // login instead of missing its token (regression: a login overlapping a reset kept a session).
      const [now] = await m.query('SELECT password_hash FROM users WHERE id = $1 FOR SHARE', [checked.id]);
      if (now?.password_hash !== checked.passwordHash) throw new BusinessError(ErrorCode.LOGIN_FAILED);
      return this.tokens.issue('user', checked.id, this.config.userTokenTtlSeconds, m);
    });
    return { token, user: publicUser(user) };
  }

  private async findForLogin({ email, phone }: LoginAccount, areaCode?: string): Promise<User | undefined> {
    if (email !== undefined) return (await this.users.findOne({ where: { email } })) ?? undefined;
    const matches = await this.users.find({ where: areaCode ? { phone, areaCode } : { phone }, take: 2 });
    // Without a country code, a number registered in two countries is ambiguous: refuse rather than guess.
    return matches.length === 1 ? matches[0] : undefined;
  }

  async forget(dto: ForgetDto, ip: string): Promise<void> {
    if (dto.password !== dto.re_password) throw new BusinessError(ErrorCode.PASSWORDS_DIFFER);
    const contact = this.contactOf(dto);
    // Its answer says whether the account exists (1107 before the code is checked): a lookup.
    await this.countLookup(ip);
    const user = await this.users.findOne({ where: contact.where });
    if (!user) throw new BusinessError(ErrorCode.ACCOUNT_NOT_FOUND);
    const codeId = await this.codes.check(contact.target, 'forget', dto.code, ip);
    const passwordHash = await hashPassword(dto.password);
    await this.dataSource.transaction(async (m) => {
      await this.codes.consume(m, codeId);
      await m.getRepository(User).update({ id: user.id }, { passwordHash });
      await this.tokens.revokeAll('user', user.id, undefined, m);
      await this.append(m, user.id, 'PasswordReset', {});
    });
  }

  async updatePassword(userId: number, currentToken: string, dto: UpdatePasswordDto): Promise<void> {
    if (dto.password !== dto.re_password) throw new BusinessError(ErrorCode.PASSWORDS_DIFFER);
    const user = await this.findById(userId);
    // Wrong current passwords count like failed logins of the account (a stolen session must not guess it).
    const bucket = `password-change:user:${userId}`;
    const guess = await this.rateLimit.guess(bucket, this.config.rateLimits.loginPerAccount, () => verifyPassword(user.passwordHash, dto.old_password));
    if (guess.outcome === 'locked') throw new BusinessError(ErrorCode.RATE_LIMITED, 'error.rate_limited', { seconds: guess.seconds });
    if (guess.outcome === 'wrong') throw new BusinessError(ErrorCode.OLD_PASSWORD_WRONG);
    const passwordHash = await hashPassword(dto.password);
    await this.dataSource.transaction(async (m) => {
      // Only while the password just checked is still the account's and this session still open: a
      // reset or another change that committed meanwhile (ending this session) is not written over
      // (regression: a change overlapping the owner's reset put the old password back).
      const [now] = await m.query('SELECT password_hash FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (!(await this.tokens.openIn(m, currentToken))) throw new NotLoggedInError();
      if (now?.password_hash !== user.passwordHash) throw new BusinessError(ErrorCode.OLD_PASSWORD_WRONG);
      await m.getRepository(User).update({ id: userId }, { passwordHash });
      // Other sessions end; the one that changed the password stays.
      await this.tokens.revokeAll('user', userId, currentToken, m);
      await this.append(m, userId, 'PasswordChanged', {});
    });
  }

  /** Where a code for the logged-in user goes: the chosen channel, else the phone, else the e-mail. */
  ownCodeTarget(user: User, channel?: 'sms' | 'email'): { channel: 'sms' | 'email'; target: string } {
    const usePhone = channel ? channel === 'sms' : user.phone !== null;
    if (usePhone && user.phone && user.areaCode) return { channel: 'sms', target: phoneTarget(user.areaCode, user.phone) };
    if (!usePhone && user.email) return { channel: 'email', target: user.email };
    throw new BusinessError(ErrorCode.NO_CONTACT_FOR_CODE);
  }

  async setFundPassword(userId: number, dto: FundPasswordDto): Promise<void> {
    if (dto.password !== dto.re_password) throw new BusinessError(ErrorCode.PASSWORDS_DIFFER);
    const user = await this.findById(userId);
    const { target } = this.ownCodeTarget(user, dto.channel);
    const codeId = await this.codes.check(target, 'fund_password', dto.code);
    const fundPasswordHash = await hashPassword(dto.password);
    await this.dataSource.transaction(async (m) => {
      await this.codes.consume(m, codeId);
      await m.getRepository(User).update({ id: userId }, { fundPasswordHash });
      await this.append(m, userId, user.fundPasswordHash ? 'FundPasswordChanged' : 'FundPasswordSet', {});
    });
  }

  async setLang(userId: number, lang: Lang): Promise<void> {
    await this.users.update({ id: userId }, { lang });
  }

  private async append(m: EntityManager, userId: number, type: string, payload: Record<string, unknown>): Promise<void> {
    await this.events.append(m, { streamId: `user:${userId}`, metadata: { actor: `user:${userId}` } }, [{ type, payload: { userId, ...payload } }]);
  }
}

function inviteCode(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += INVITE_ALPHABET[randomInt(INVITE_ALPHABET.length)];
  return s;
}

/** "13800138000" → "138****8000"; "ana@example.com" → "ana". */
function defaultNickname(account: string): string {
  if (account.includes('@')) return account.split('@')[0].slice(0, 32);
  return account.length > 7 ? `${account.slice(0, 3)}****${account.slice(-4)}` : account;
}

/** A login's account as it is looked up: a lower-cased e-mail, or a phone number without its spacing and `+`. */
type LoginAccount = { email: string; phone?: undefined } | { email?: undefined; phone: string };
function loginAccount(raw: string): LoginAccount {
  const account = raw.trim();
  return EMAIL_RE.test(account) ? { email: normalizeEmail(account) } : { phone: normalizePhone(account).replace(/^\+/, '') };
}
