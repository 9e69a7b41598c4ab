import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext } from '../../infra/auth/guards';
import { TokenService } from '../../infra/auth/token.service';
import { Reply } from '../../infra/http/envelope';
import { ClientIp } from '../../infra/http/request-context';
import { EngineHost } from '../engine/engine-host.service';
import { TrialBalanceService } from '../ledger/trial-balance.service';
import { AdminLoginDto, OutboxQueryDto, UserSearchDto } from './admin.dto';
import { AdminService } from './admin.service';

@ApiTags('admin')
@Controller('admin')
export class AdminController {
  constructor(
    private readonly admin: AdminService,
    private readonly trialBalance: TrialBalanceService,
    private readonly host: EngineHost,
    private readonly tokens: TokenService,
  ) {}

  @Post('login')
  login(@Body() dto: AdminLoginDto, @ClientIp() ip: string) {
    return this.admin.login(dto, ip);
  }

  /** Ends this operator session: the token no longer opens any route (as `user/logout` for a user). */
  @Post('logout')
  @AdminAuth()
  async logout(@Auth() auth: AuthContext) {
    await this.tokens.revoke(auth.token);
    return new Reply(null, 'msg.logout_success');
  }

  @Get('users')
  @AdminAuth()
  users(@Query() q: UserSearchDto) {
    return this.admin.users(q);
  }

  /** Users' messages with their codes: off unless ADMIN_OUTBOX_READ=on (1006); each read is recorded. */
  @Get('outbox')
  @AdminAuth()
  outbox(@Auth() auth: AuthContext, @Query() q: OutboxQueryDto) {
    return this.admin.outbox(auth.subjectId, q);
  }

  /** The sequencer's journal and projection positions and the projector's lag since the last call. */
  @Get('engine')
  @AdminAuth()
  engine() {
    return this.host.stats();
  }

  @Get('ledger/trial-balance')
  @AdminAuth()
  trial() {
    return this.trialBalance.compute();
  }
}
