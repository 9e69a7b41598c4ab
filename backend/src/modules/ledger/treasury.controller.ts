import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext } from '../../infra/auth/guards';
import { HouseFundingDto } from './house-funding';
import { TreasuryService } from './treasury.service';

/** Operators: the house's float per currency, and its recorded funding from outside. */
@ApiTags('admin')
@Controller('admin/treasury')
@AdminAuth()
export class TreasuryController {
  constructor(private readonly treasury: TreasuryService) {}

  @Get()
  overview() {
    return this.treasury.overview();
  }

  @Post('fund')
  fund(@Auth() auth: AuthContext, @Body() dto: HouseFundingDto) {
    return this.treasury.fund(auth.subjectId, dto);
  }
}
