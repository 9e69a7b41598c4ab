import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../../infra/http/page.dto';

export class OrderQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['waiting', 'completed', 'cancelled'], description: 'Default: all' })
  @IsOptional()
  @IsIn(['waiting', 'completed', 'cancelled'])
  status?: 'waiting' | 'completed' | 'cancelled';

  @ApiPropertyOptional({ example: 'BTC/USDT' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  symbol?: string;
}
