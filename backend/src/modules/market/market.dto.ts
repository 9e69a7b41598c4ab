import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { REQUEST_PERIODS, RequestPeriod } from './periods';
import { Optional } from '../../infra/http/validation';

/** 9999-12-31T23:59:59Z: the last second a K-line range may name (PostgreSQL's timestamps hold it). */
const LAST_SECOND = 253_402_300_799;

export class SymbolDto {
  @ApiProperty({ example: 'BTC/USDT' })
  @IsNotEmpty({ message: 'error.market_not_found' })
  @IsString({ message: 'error.market_not_found' })
  @MaxLength(32, { message: 'error.market_not_found' })
  symbol: string;
}

export class DealsQueryDto extends SymbolDto {
  @ApiPropertyOptional({ default: 50, maximum: 200 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit: number = 50;
}

export class DepthQueryDto extends SymbolDto {
  @ApiPropertyOptional({ default: 20, maximum: 100 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  levels: number = 20;
}

export class KlineQueryDto extends SymbolDto {
  @ApiProperty({ enum: REQUEST_PERIODS })
  @IsIn(REQUEST_PERIODS)
  period: RequestPeriod;

  @ApiPropertyOptional({ description: 'Unix seconds, inclusive', maximum: LAST_SECOND })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(LAST_SECOND)
  from?: number;

  @ApiPropertyOptional({ description: 'Unix seconds, inclusive', maximum: LAST_SECOND })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(LAST_SECOND)
  to?: number;

  @ApiPropertyOptional({ default: 300, maximum: 1500 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1500)
  limit: number = 300;
}
