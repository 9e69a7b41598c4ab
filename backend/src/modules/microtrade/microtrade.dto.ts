import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsString, Matches, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { AMOUNT_RE, CLIENT_ID_RE } from '../wallet/dto/wallet.dto';
import { Optional, RequiredReason } from '../../infra/http/validation';

export class OptionSubmitDto {
  @ApiProperty({ example: 'BTC/USDT' })
  @IsNotEmpty({ message: 'error.market_not_found' })
  @IsString({ message: 'error.market_not_found' })
  @MaxLength(32, { message: 'error.market_not_found' })
  symbol: string;

  @ApiProperty({ enum: ['up', 'down'] })
  @IsIn(['up', 'down'], { message: 'error.option_direction_invalid' })
  direction: 'up' | 'down';

  @ApiProperty({ description: 'A delivery time id from microtrade/seconds' })
  @IsNotEmpty({ message: 'error.option_period_required' })
  @Type(() => Number)
  @IsInt({ message: 'error.option_period_required' })
  @Min(1, { message: 'error.option_period_required' })
  period_id: number;

  @ApiProperty({ example: '100', description: 'Stake in USDT' })
  @IsNotEmpty({ message: 'error.quantity_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  quantity: string;

  @ApiPropertyOptional({ description: 'Client-generated id: a retry buys once' })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class OptionListDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['pending', 'delivered'], description: 'Default: pending (awaiting delivery)' })
  @Optional()
  @IsIn(['pending', 'delivered'])
  status: 'pending' | 'delivered' = 'pending';
}

export class OptionIdDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.option_not_found' })
  @IsString({ message: 'error.option_not_found' })
  @Matches(/^\d{1,18}$/, { message: 'error.option_not_found' })
  order_id: string;
}

export class OptionPeriodDto {
  @ApiProperty({ example: 60 })
  @Type(() => Number)
  @IsInt()
  @Min(5)
  seconds: number;

  @ApiProperty({ example: '0.3' })
  @IsString()
  @Matches(/^\d{1,4}(\.\d{1,8})?$/, { message: 'error.rate_invalid' })
  profit_ratio: string;

  @ApiProperty({ example: '10' })
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  min_qty: string;

  @ApiProperty({ example: '10000' })
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  max_qty: string;

  @ApiPropertyOptional({ example: '0' })
  @Optional()
  @IsString()
  @Matches(/^0(\.\d{1,8})?$/, { message: 'error.rate_invalid' })
  fee_rate?: string;

  @ApiPropertyOptional({ description: 'true/false' })
  @Optional()
  @IsString()
  @Matches(/^(true|false|1|0)$/)
  enabled?: string;

  @ApiProperty()
  @RequiredReason()
  reason: string;
}
