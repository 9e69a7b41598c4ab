import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { IntIdPipe } from '../../infra/http/id-pipes';
import { ApproveDto, KycRejectDto, VerificationQueryDto } from './dto/real-name.dto';
import { RealNameService } from './real-name.service';

/** Operators review identity verifications. Every route needs an operator token. */
@ApiTags('admin')
@Controller('admin/real_name')
@AdminAuth()
export class RealNameAdminController {
  constructor(private readonly realName: RealNameService) {}

  @Get()
  list(@Auth() auth: AuthContext, @Query() q: VerificationQueryDto) {
    return this.realName.list(auth.subjectId, q);
  }

  @Get(':id')
  detail(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number) {
    return this.realName.detail(auth.subjectId, id);
  }

  @Post(':id/approve')
  async approve(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: ApproveDto) {
    return new Reply(await this.realName.approve(auth.subjectId, id, dto.reason || undefined), 'kyc.approved');
  }

  @Post(':id/reject')
  async reject(@Auth() auth: AuthContext, @Param('id', IntIdPipe) id: number, @Body() dto: KycRejectDto) {
    return new Reply(await this.realName.reject(auth.subjectId, id, dto.reason), 'kyc.rejected');
  }
}
