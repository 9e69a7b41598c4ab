import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext } from '../../infra/auth/guards';
import { RateQueryDto, SetFiatRateDto } from './coin-rate.dto';
import { CoinRateService } from './coin-rate.service';

@ApiTags('pricing')
@Controller()
export class CoinRateController {
  constructor(private readonly rates: CoinRateService) {}

  /** The pricing currencies users can pick (settings) with their rate per USD. */
  @Get('coin/rate/list')
  list() {
    return this.rates.list();
  }

  @Get('coin/rate')
  one(@Query() q: RateQueryDto) {
    return this.rates.one(q.code);
  }

  @Get('admin/fiat-rates')
  @AdminAuth()
  all() {
    return this.rates.list(true);
  }

  @Post('admin/fiat-rates')
  @AdminAuth()
  set(@Auth() auth: AuthContext, @Body() dto: SetFiatRateDto) {
    return this.rates.set(auth.subjectId, dto);
  }
}
