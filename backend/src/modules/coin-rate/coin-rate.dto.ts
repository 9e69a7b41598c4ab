import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsString, Matches, MaxLength, Min } from 'class-validator';
import { Type } from 'class-transformer';
import { Optional, RequiredReason } from '../../infra/http/validation';

export class RateQueryDto {
  @ApiProperty({ example: 'CNY' })
  @IsNotEmpty({ message: 'error.pricing_currency_unknown' })
  @IsString({ message: 'error.pricing_currency_unknown' })
  @Matches(/^[A-Za-z]{3,8}$/, { message: 'error.pricing_currency_unknown' })
  code: string;
}

export class SetFiatRateDto {
  @ApiProperty({ example: 'CNY' })
  @IsString()
  @Matches(/^[A-Z]{3,8}$/)
  code: string;

  @ApiProperty({ example: '7.12', description: 'Units of this currency per 1 USD (= 1 USDT)' })
  @IsString()
  @Matches(/^\d{1,12}(\.\d{1,8})?$/, { message: 'error.rate_invalid' })
  rate: string;

  @ApiPropertyOptional({ example: 'Chinese yuan' })
  @Optional()
  @IsString()
  @MaxLength(64)
  name?: string;

  @ApiPropertyOptional({ example: '¥' })
  @Optional()
  @IsString()
  @MaxLength(8)
  symbol?: string;

  @ApiPropertyOptional({ description: 'false hides it from users' })
  @Optional()
  @IsString()
  @Matches(/^(true|false|1|0)$/)
  enabled?: string;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  sort?: number;

  @ApiProperty({ description: 'Why the rate changes (kept with the event)' })
  @RequiredReason()
  reason: string;
}
