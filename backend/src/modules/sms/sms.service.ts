import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { NotLoggedInError } from '../../infra/http/not-logged-in.error';
import { Lang } from '../../infra/i18n/catalogue';
import { UserService } from '../user/user.service';
import { CodePurpose, OWN_CONTACT_PURPOSES } from '../verification-code/code-purpose';
import { phoneTarget } from '../verification-code/contact';
import { VerificationCodeService } from '../verification-code/verification-code.service';
import { SendMailDto, SendSmsDto } from './sms.dto';

/** Decides where a code may go for each purpose, then hands it to the code service. */
@Injectable()
export class SmsService {
  constructor(
    private readonly users: UserService,
    private readonly codes: VerificationCodeService,
    private readonly dataSource: DataSource,
  ) {}

  async sendSms(dto: SendSmsDto, userId: number | undefined, lang: Lang, ip: string): Promise<void> {
    const purpose = dto.purpose ?? 'register';
    if (OWN_CONTACT_PURPOSES.includes(purpose)) return this.sendOwn('sms', purpose, userId, lang, ip);
    const [area] = await this.dataSource.query('SELECT 1 FROM area_codes WHERE dial_code = $1 LIMIT 1', [dto.area_code]);
    if (!area) throw new BusinessError(ErrorCode.VALIDATION, 'error.area_code_invalid');
    await this.checkAccountState(purpose, (await this.users.registered({ areaCode: dto.area_code!, phone: dto.phone! }, ip)).registered);
    await this.codes.send('sms', phoneTarget(dto.area_code!, dto.phone!), purpose, lang, ip);
  }

  async sendMail(dto: SendMailDto, userId: number | undefined, lang: Lang, ip: string): Promise<void> {
    const purpose = dto.purpose ?? 'register';
    if (OWN_CONTACT_PURPOSES.includes(purpose)) return this.sendOwn('email', purpose, userId, lang, ip);
    await this.checkAccountState(purpose, (await this.users.registered({ email: dto.email! }, ip)).registered);
    await this.codes.send('email', dto.email!, purpose, lang, ip);
  }

  /**
   * Registration needs a new account; recovery an existing one. Say so before sending anything: the
   * answer tells whether the account exists, so the lookup is counted per IP like the public lookups.
   */
  private async checkAccountState(purpose: CodePurpose, exists: boolean): Promise<void> {
    if (purpose === 'register' && exists) throw new BusinessError(ErrorCode.ACCOUNT_EXISTS);
    if (purpose === 'forget' && !exists) throw new BusinessError(ErrorCode.ACCOUNT_NOT_FOUND);
  }

  private async sendOwn(channel: 'sms' | 'email', purpose: CodePurpose, userId: number | undefined, lang: Lang, ip: string): Promise<void> {
    if (userId === undefined) throw new NotLoggedInError();
    const { target } = this.users.ownCodeTarget(await this.users.findById(userId), channel);
    await this.codes.send(channel, target, purpose, lang, ip);
  }
}
