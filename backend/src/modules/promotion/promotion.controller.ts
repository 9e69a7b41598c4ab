import { Body, Controller, Get, Param, ParseIntPipe, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AdminAuth, Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { RequestLang } from '../../infra/http/request-context';
import type { Lang } from '../../infra/i18n/catalogue';
import { PromotionSettingsService } from './promotion-settings.service';
import { BindAuthCodeDto, PartnerDto, PromotionPageDto, PromotionSettingsDto } from './promotion.dto';
import { PromotionService } from './promotion.service';

/** The app's own address, for links: the page that called us (Origin), else this server. */
function origin(req: Request): string {
  const o = req.headers.origin;
  if (typeof o === 'string' && /^https?:\/\/[^\s/]+$/.test(o)) return o;
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

@ApiTags('promotion')
@Controller('user')
@UserAuth()
export class PromotionController {
  constructor(private readonly promotion: PromotionService) {}

  @Get('invite')
  invite(@Auth() auth: AuthContext, @Req() req: Request) {
    return this.promotion.invite(auth.subjectId, origin(req));
  }

  @Post('invite_list')
  inviteList(@Auth() auth: AuthContext, @Body() q: PromotionPageDto) {
    return this.promotion.inviteList(auth.subjectId, q.page, q.limit);
  }

  @Post('myInvite')
  myInvite(@Auth() auth: AuthContext) {
    return this.promotion.myInvite(auth.subjectId);
  }

  @Post('my_account_return')
  records(@Auth() auth: AuthContext, @Body() q: PromotionPageDto) {
    return this.promotion.records(auth.subjectId, q.page, q.limit);
  }

  @Get('invite_ranking')
  ranking() {
    return this.promotion.ranking();
  }

  @Get('my_poster')
  poster(@Auth() auth: AuthContext, @Req() req: Request, @RequestLang() lang: Lang) {
    return this.promotion.poster(auth.subjectId, origin(req), lang);
  }

  @Get('my_share')
  share(@Auth() auth: AuthContext, @Req() req: Request, @RequestLang() lang: Lang) {
    return this.promotion.share(auth.subjectId, origin(req), lang);
  }

  @Post('bind_auth_code')
  async bind(@Auth() auth: AuthContext, @Body() dto: BindAuthCodeDto) {
    return new Reply(await this.promotion.bindAuthCode(auth.subjectId, dto.auth_code), 'msg.promotion_bound');
  }
}

/** Operators: partners (exclusive promoters) and the rebate ratios; every change an event with the operator and reason. */
@ApiTags('admin')
@Controller('admin/promotion')
@AdminAuth()
export class PromotionAdminController {
  constructor(
    private readonly promotion: PromotionService,
    private readonly settings: PromotionSettingsService,
  ) {}

  @Get('partners')
  partners() {
    return this.promotion.partners();
  }

  @Post('partners/:userId')
  partner(@Auth() auth: AuthContext, @Param('userId', ParseIntPipe) userId: number, @Body() dto: PartnerDto) {
    return this.promotion.setPartner(auth.subjectId, userId, dto.partner === '1', dto.reason);
  }

  @Get('settings')
  getSettings() {
    return this.settings.get();
  }

  @Post('settings')
  setSettings(@Auth() auth: AuthContext, @Body() dto: PromotionSettingsDto) {
    return this.settings.set(auth.subjectId, { ratio: dto.ratio, partner_ratio: dto.partner_ratio }, dto.reason);
  }
}
