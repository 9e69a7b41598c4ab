import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { PageQueryDto } from '../../infra/http/page.dto';
import { FlashConvertDto, FlashQuoteDto } from './fpjy.dto';
import { FlashExchangeService } from './fpjy.service';

@ApiTags('flash exchange')
@Controller('fpjy')
@UserAuth()
export class FlashExchangeController {
  constructor(private readonly flash: FlashExchangeService) {}

  @Get('coins')
  coins() {
    return this.flash.coins();
  }

  @Post('quote')
  quote(@Auth() auth: AuthContext, @Body() dto: FlashQuoteDto) {
    return this.flash.quote(auth.subjectId, dto.from_currency_id, dto.to_currency_id, dto.amount);
  }

  @Post('convert')
  async convert(@Auth() auth: AuthContext, @Body() dto: FlashConvertDto) {
    return new Reply(await this.flash.convert(auth.subjectId, dto.quote_id), 'msg.flash_done');
  }

  @Get('list')
  list(@Auth() auth: AuthContext, @Query() q: PageQueryDto) {
    return this.flash.history(auth.subjectId, q.page, q.limit);
  }
}
