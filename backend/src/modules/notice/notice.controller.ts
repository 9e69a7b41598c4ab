import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { PageQueryDto } from '../../infra/http/page.dto';
import { RequestLang } from '../../infra/http/request-context';
import type { Lang } from '../../infra/i18n/catalogue';
import { NoticeReadDto, NoticeReadAllDto } from './notice.dto';
import { NoticeService } from './notice.service';

/** The notices page's message tab: the caller's own messages. */
@ApiTags('notice')
@Controller('notice')
@UserAuth()
export class NoticeController {
  constructor(private readonly notices: NoticeService) {}

  @Get('list')
  list(@Auth() auth: AuthContext, @RequestLang() lang: Lang, @Query() q: PageQueryDto) {
    return this.notices.list(auth.subjectId, lang, q);
  }

  @Get('unread')
  async unread(@Auth() auth: AuthContext) {
    return { unread: await this.notices.unread(auth.subjectId) };
  }

  @Post('read')
  read(@Auth() auth: AuthContext, @RequestLang() lang: Lang, @Body() dto: NoticeReadDto) {
    return this.notices.read(auth.subjectId, lang, dto.id);
  }

  @Post('read_all')
  readAll(@Auth() auth: AuthContext, @Body() dto: NoticeReadAllDto) {
    return this.notices.readAll(auth.subjectId, dto.up_to);
  }
}
