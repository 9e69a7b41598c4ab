import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../../infra/http/page.dto';
import { Optional } from '../../../infra/http/validation';

export class OrderQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['waiting', 'completed', 'cancelled'], description: 'Default: all' })
  @Optional()
  @IsIn(['waiting', 'completed', 'cancelled'])
  status?: 'waiting' | 'completed' | 'cancelled';

  @ApiPropertyOptional({ example: 'BTC/USDT' })
  @Optional()
  @IsString()
  @MaxLength(32)
  symbol?: string;
}
