import { Body, Controller, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, OptionalUserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { ClientIp, RequestLang } from '../../infra/http/request-context';
import { Lang } from '../../infra/i18n/catalogue';
import { SendMailDto, SendSmsDto } from './sms.dto';
import { SmsService } from './sms.service';

@ApiTags('verification codes')
@Controller()
@OptionalUserAuth()
export class SmsController {
  constructor(private readonly sms: SmsService) {}

  @Post('sms_send')
  async sendSms(@Body() dto: SendSmsDto, @Auth() auth: AuthContext | undefined, @RequestLang() lang: Lang, @ClientIp() ip: string) {
    await this.sms.sendSms(dto, auth?.subjectId, lang, ip);
    return new Reply(null, 'msg.code_sent');
  }

  @Post('sms_mail')
  async sendMail(@Body() dto: SendMailDto, @Auth() auth: AuthContext | undefined, @RequestLang() lang: Lang, @ClientIp() ip: string) {
    await this.sms.sendMail(dto, auth?.subjectId, lang, ip);
    return new Reply(null, 'msg.code_sent');
  }
}
