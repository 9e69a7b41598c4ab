import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { OptionIdDto, OptionListDto, OptionPeriodDto, OptionSubmitDto } from './microtrade.dto';
import { MicrotradeService } from './microtrade.service';

@ApiTags('options')
@Controller()
export class MicrotradeController {
  constructor(private readonly options: MicrotradeService) {}

  @Get('microtrade/payable_currencies')
  @UserAuth()
  currencies(@Auth() auth: AuthContext) {
    return this.options.currencies(auth.subjectId);
  }

  /** Delivery times with profit ratio and quantity range (public). */
  @Get('microtrade/seconds')
  seconds() {
    return this.options.periods();
  }

  @Post('microtrade/submit')
  @UserAuth()
  async submit(@Auth() auth: AuthContext, @Body() dto: OptionSubmitDto) {
    return new Reply(await this.options.submit(auth.subjectId, dto), 'msg.option_bought');
  }

  @Get('microtrade/lists')
  @UserAuth()
  list(@Auth() auth: AuthContext, @Query() q: OptionListDto) {
    return this.options.list(auth.subjectId, q);
  }

  /** The recorded ticks an option was settled on (public: anyone can check a result). */
  @Get('microtrade/ticks')
  ticks(@Query() q: OptionIdDto) {
    return this.options.ticks(q.order_id);
  }

  @Get('admin/option-periods')
  @AdminAuth()
  periods() {
    return this.options.periods(true);
  }

  @Post('admin/option-periods')
  @AdminAuth()
  setPeriod(@Auth() auth: AuthContext, @Body() dto: OptionPeriodDto) {
    return this.options.setPeriod(auth.subjectId, dto);
  }
}
