import { Body, Controller, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { LeverIdDto, LeverListDto, LeverSubmitDto, LeverSymbolDto, LeverTpSlDto } from './lever.dto';
import { LeverService } from './lever.service';

@ApiTags('contracts')
@Controller('lever')
@UserAuth()
export class LeverController {
  constructor(private readonly lever: LeverService) {}

  @Post('deal')
  deal(@Auth() auth: AuthContext, @Body() dto: LeverSymbolDto) {
    return this.lever.deal(auth.subjectId, dto.symbol);
  }

  @Post('submit')
  async submit(@Auth() auth: AuthContext, @Body() dto: LeverSubmitDto) {
    return new Reply(await this.lever.submit(auth.subjectId, dto), 'msg.position_opened');
  }

  @Post('my_trade')
  list(@Auth() auth: AuthContext, @Body() dto: LeverListDto) {
    return this.lever.list(auth.subjectId, dto);
  }

  @Post('close')
  async close(@Auth() auth: AuthContext, @Body() dto: LeverIdDto) {
    return new Reply(await this.lever.close(auth.subjectId, dto.id), 'msg.position_closed');
  }

  @Post('tpsl')
  async tpsl(@Auth() auth: AuthContext, @Body() dto: LeverTpSlDto) {
    return new Reply(await this.lever.setTpSl(auth.subjectId, dto), 'msg.tpsl_saved');
  }

  @Post('cancel')
  async cancel(@Auth() auth: AuthContext, @Body() dto: LeverIdDto) {
    return new Reply(await this.lever.cancel(auth.subjectId, dto.id), 'msg.order_cancelled');
  }
}
