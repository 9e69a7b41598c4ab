import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { IntIdPipe } from '../../infra/http/id-pipes';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext } from '../../infra/auth/guards';
import { DepositService } from './deposit.service';
import { ReasonDto } from '../../infra/http/reason.dto';
import { AdminRecordQueryDto, ApproveWithdrawalDto, ChainConfigDto, CoinConfigDto, FundingRejectDto } from './dto/funding.dto';
import { FundingConfigService } from './funding-config.service';
import { WithdrawalService } from './withdrawal.service';

/** Operators: review deposits and withdrawals; configure coins and chains. Every decision is an event with the operator and reason. */
@ApiTags('admin')
@Controller('admin')
@AdminAuth()
export class WalletAdminController {
  constructor(
    private readonly deposits: DepositService,
    private readonly withdrawals: WithdrawalService,
    private readonly funding: FundingConfigService,
  ) {}

  @Get('deposits')
  depositList(@Query() q: AdminRecordQueryDto) {
    return this.deposits.records(q);
  }

  @Post('deposits/:id/approve')
  approveDeposit(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: ReasonDto) {
    return this.deposits.approve(auth.subjectId, id, dto.reason);
  }

  @Post('deposits/:id/reject')
  rejectDeposit(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: FundingRejectDto) {
    return this.deposits.reject(auth.subjectId, id, dto.reason);
  }

  @Get('withdrawals')
  withdrawalList(@Query() q: AdminRecordQueryDto) {
    return this.withdrawals.records(q);
  }

  @Post('withdrawals/:id/approve')
  approveWithdrawal(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: ApproveWithdrawalDto) {
    return this.withdrawals.approve(auth.subjectId, id, dto);
  }

  @Post('withdrawals/:id/reject')
  rejectWithdrawal(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: FundingRejectDto) {
    return this.withdrawals.reject(auth.subjectId, id, dto.reason);
  }

  @Get('coins')
  coins() {
    return this.funding.overview();
  }

  @Post('coins/:id')
  setCoin(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: CoinConfigDto) {
    return this.funding.setCoin(auth.subjectId, id, dto);
  }

  @Post('chains/:id')
  setChain(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: ChainConfigDto) {
    return this.funding.setChain(auth.subjectId, id, dto);
  }
}
