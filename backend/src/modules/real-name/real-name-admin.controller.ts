import { Body, Controller, Get, Param, PipeTransform, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext } from '../../infra/auth/guards';
import { BusinessError } from '../../infra/http/business-error';
import { Reply } from '../../infra/http/envelope';
import { ErrorCode } from '../../infra/http/error-codes';
import { ApproveDto, RejectDto, VerificationQueryDto } from './dto/real-name.dto';
import { RealNameService } from './real-name.service';

/** A non-numeric id, or one past what the column holds, answers 1000 as in every operator route (docs/api.md); an unknown one 2313. */
const IdPipe: PipeTransform<string, number> = {
  transform: (value) => {
    if (!/^\d{1,10}$/.test(value) || Number(value) > 2_147_483_647) throw new BusinessError(ErrorCode.VALIDATION, 'error.validation');
    return Number(value);
  },
};

/** Operators review identity verifications. Every route needs an operator token. */
@ApiTags('admin')
@Controller('admin/real_name')
@AdminAuth()
export class RealNameAdminController {
  constructor(private readonly realName: RealNameService) {}

  @Get()
  list(@Query() q: VerificationQueryDto) {
    return this.realName.list(q);
  }

  @Get(':id')
  detail(@Param('id', IdPipe) id: number) {
    return this.realName.detail(id);
  }

  @Post(':id/approve')
  async approve(@Auth() auth: AuthContext, @Param('id', IdPipe) id: number, @Body() dto: ApproveDto) {
    return new Reply(await this.realName.approve(auth.subjectId, id, dto.reason || undefined), 'kyc.approved');
  }

  @Post(':id/reject')
  async reject(@Auth() auth: AuthContext, @Param('id', IdPipe) id: number, @Body() dto: RejectDto) {
    return new Reply(await this.realName.reject(auth.subjectId, id, dto.reason), 'kyc.rejected');
  }
}
