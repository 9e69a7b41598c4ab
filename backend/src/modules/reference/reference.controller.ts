import { Controller, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { AreaCode } from './area-code.entity';

@ApiTags('reference')
@Controller()
export class ReferenceController {
  constructor(private readonly dataSource: DataSource) {}

  /** Country calling codes for the phone route of registration and login. */
  @Post('area_code')
  async areaCodes() {
    const rows = await this.dataSource.getRepository(AreaCode).find({ order: { sort: 'ASC', name: 'ASC' } });
    return rows.map((r) => ({ iso: r.iso, code: r.dialCode, name: r.name }));
  }
}
