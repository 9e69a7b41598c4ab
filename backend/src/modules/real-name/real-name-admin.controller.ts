import { Body, Controller, Get, Param, PipeTransform, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext } from '../../infra/auth/guards';
import { BusinessError } from '../../infra/http/business-error';
import { Reply } from '../../infra/http/envelope';
import { ErrorCode } from '../../infra/http/error-codes';
import { ApproveDto, RejectDto, VerificationQueryDto } from './dto/real-name.dto';
import { RealNameService } from './real-name.service';

/** A malformed or out-of-range id is answered like an unknown one. */
const IdPipe: PipeTransform<string, number> = {
  transform: (value) => {
    if (!/^[1-9]\d{0,8}$/.test(value)) throw new BusinessError(ErrorCode.KYC_NOT_FOUND);
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
