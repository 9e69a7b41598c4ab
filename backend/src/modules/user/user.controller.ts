import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { TokenService } from '../../infra/auth/token.service';
import { Reply } from '../../infra/http/envelope';
import { ClientIp, RequestLang } from '../../infra/http/request-context';
import { Lang } from '../../infra/i18n/catalogue';
import { CheckEmailDto, CheckPhoneDto, FundPasswordDto, LoginDto, UpdatePasswordDto } from './dto/account.dto';
import { ForgetDto, RegisterDto } from './dto/register.dto';
import { RealNameService } from '../real-name/real-name.service';
import { publicUser, UserService } from './user.service';

@ApiTags('user')
@Controller()
export class UserController {
  constructor(
    private readonly users: UserService,
    private readonly tokens: TokenService,
    private readonly realName: RealNameService,
  ) {}

  @Post('user/register')
  async register(@Body() dto: RegisterDto, @ClientIp() ip: string, @RequestLang() lang: Lang) {
    return new Reply(await this.users.register(dto, ip, lang), 'msg.register_success');
  }

  @Post('user/login')
  async login(@Body() dto: LoginDto, @ClientIp() ip: string) {
    return new Reply(await this.users.login(dto, ip), 'msg.login_success');
  }

  @Post('user/forget')
  async forget(@Body() dto: ForgetDto, @ClientIp() ip: string) {
    await this.users.forget(dto, ip);
    return new Reply(null, 'msg.password_reset');
  }

  @Post('user/check_mobile')
  async checkMobile(@Body() dto: CheckPhoneDto, @ClientIp() ip: string) {
    return this.users.registered(dto.area_code ? { phone: dto.phone, areaCode: dto.area_code } : { phone: dto.phone }, ip);
  }

  @Post('user/check_email')
  async checkEmail(@Body() dto: CheckEmailDto, @ClientIp() ip: string) {
    return this.users.registered({ email: dto.email }, ip);
  }

  @Get('user/center')
  @UserAuth()
  async center(@Auth() auth: AuthContext) {
    const [user, verification] = await Promise.all([this.users.findById(auth.subjectId), this.realName.summary(auth.subjectId)]);
    return { ...publicUser(user), verification };
  }

  @Get('user/center2')
  @UserAuth()
  async center2(@Auth() auth: AuthContext) {
    const u = publicUser(await this.users.findById(auth.subjectId));
    return { nickname: u.nickname, account: u.account, phone: u.phone, area_code: u.area_code, email: u.email, verification_level: u.verification_level, has_fund_password: u.has_fund_password, invite_code: u.invite_code };
  }

  @Post('user/has_password')
  @UserAuth()
  async hasPassword(@Auth() auth: AuthContext) {
    return { has_password: (await this.users.findById(auth.subjectId)).fundPasswordHash !== null };
  }

  @Post('user/e_pwd')
  @UserAuth()
  async fundPassword(@Auth() auth: AuthContext, @Body() dto: FundPasswordDto) {
    await this.users.setFundPassword(auth.subjectId, dto);
    return new Reply(null, 'msg.fund_password_set');
  }

  @Post('safe/update_password')
  @UserAuth()
  async updatePassword(@Auth() auth: AuthContext, @Body() dto: UpdatePasswordDto) {
    await this.users.updatePassword(auth.subjectId, auth.token, dto);
    return new Reply(null, 'msg.password_changed');
  }

  @Post('user/logout')
  @UserAuth()
  async logout(@Auth() auth: AuthContext) {
    await this.tokens.revoke(auth.token);
    return new Reply(null, 'msg.logout_success');
  }
}
