import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { AdvancedVerificationDto, BasicVerificationDto } from './dto/real-name.dto';
import { RealNameService } from './real-name.service';

@ApiTags('real-name')
@Controller('user')
export class RealNameController {
  constructor(private readonly realName: RealNameService) {}

  @Get('real_name')
  @UserAuth()
  state(@Auth() auth: AuthContext) {
    return this.realName.summary(auth.subjectId);
  }

  @Post('real_name')
  @UserAuth()
  async basic(@Auth() auth: AuthContext, @Body() dto: BasicVerificationDto) {
    return new Reply(await this.realName.submitBasic(auth.subjectId, dto), 'kyc.submitted');
  }

  @Post('real_name2')
  @UserAuth()
  async advanced(@Auth() auth: AuthContext, @Body() dto: AdvancedVerificationDto) {
    return new Reply(await this.realName.submitAdvanced(auth.subjectId, dto), 'kyc.submitted');
  }
}
