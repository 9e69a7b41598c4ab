import { Body, Controller, Get, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { IeoAdminService } from './ieo-admin.service';
import { IeoConfigDto, IeoMarketDto, IeoOrderInfoDto, IeoProjectCreateDto, IeoProjectEditDto, IeoSubmitDto } from './newcoin.dto';
import { NewcoinService } from './newcoin.service';

@ApiTags('newcoin')
@Controller()
export class NewcoinController {
  constructor(private readonly newcoin: NewcoinService) {}

  /** Projects (public): the list, or one project's details with `id`. */
  @Get('lh/newcoin/config')
  config(@Query() q: IeoConfigDto) {
    return this.newcoin.config(q);
  }

  @Get('lh/newcoin/order/info')
  @UserAuth()
  info(@Auth() auth: AuthContext, @Query() q: IeoOrderInfoDto) {
    return this.newcoin.info(auth.subjectId, q);
  }

  @Post('lh/newcoin/order/submit')
  @UserAuth()
  async submit(@Auth() auth: AuthContext, @Body() dto: IeoSubmitDto) {
    return new Reply(await this.newcoin.submit(auth.subjectId, dto), 'msg.ieo_subscribed');
  }
}

/** Operators: IEO projects (each change an event with the operator and reason) and the new coin's market. */
@ApiTags('admin')
@Controller('admin/ieo')
@AdminAuth()
export class NewcoinAdminController {
  constructor(private readonly admin: IeoAdminService) {}

  @Get()
  list() {
    return this.admin.list();
  }

  @Post()
  create(@Auth() auth: AuthContext, @Body() dto: IeoProjectCreateDto) {
    return this.admin.create(auth.subjectId, dto);
  }

  @Post(':id')
  edit(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: IeoProjectEditDto) {
    return this.admin.edit(auth.subjectId, id, dto);
  }

  @Post(':id/market')
  listMarket(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: IeoMarketDto) {
    return this.admin.listMarket(auth.subjectId, id, dto);
  }
}
