import { Body, Controller, Post } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { Auth, AuthContext, OptionalUserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { RequestLang } from '../../infra/http/request-context';
import { Lang, LANGS } from '../../infra/i18n/catalogue';
import { UserService } from '../user/user.service';
import { SettingsService } from './settings.service';

export class SetLangDto {
  @ApiProperty({ enum: LANGS })
  @IsIn(LANGS, { message: 'error.lang_invalid' })
  lang: Lang;
}

@ApiTags('settings')
@Controller()
export class SettingsController {
  constructor(
    private readonly settings: SettingsService,
    private readonly users: UserService,
  ) {}

  @Post('settings/get')
  settingsGet() {
    return this.settings.app();
  }

  /** Called by the app on launch; stored on the account when logged in (messages pushed later use it). */
  @Post('set/lang')
  @OptionalUserAuth()
  async setLang(@Body() dto: SetLangDto, @Auth() auth: AuthContext | undefined) {
    if (auth) await this.users.setLang(auth.subjectId, dto.lang);
    return new Reply({ lang: dto.lang }, 'msg.lang_set');
  }

  @Post('get/lang')
  @OptionalUserAuth()
  async getLang(@Auth() auth: AuthContext | undefined, @RequestLang() headerLang: Lang) {
    const lang = auth ? (await this.users.findById(auth.subjectId)).lang : headerLang;
    return { lang, languages: (await this.settings.app()).languages };
  }
}
