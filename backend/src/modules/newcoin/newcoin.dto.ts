import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { AMOUNT_RE, CLIENT_ID_RE } from '../wallet/dto/wallet.dto';
import { Optional, RequiredReason, Trim, ZONED_TIME_RE } from '../../infra/http/validation';

/** Prices: at most 8 decimals, so quantity × price is exact in the ledger's 18. */
const PRICE_RE = /^\d{1,12}(\.\d{1,8})?$/;
const FEE_RE = /^0(\.\d{1,8})?$|^1$/;
/** A subscription window's ends: a date and time with its time zone (as the wealth products' sale window), a real date (strict: no 2026-02-31). */

export class IeoConfigDto {
  @ApiPropertyOptional({ description: 'A project id: its details; without it, the list' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.ieo_not_found' })
  @Min(1, { message: 'error.ieo_not_found' })
  id?: number;

  @ApiPropertyOptional({ enum: ['upcoming', 'active', 'ended', 'distributed'] })
  @Optional()
  @IsIn(['upcoming', 'active', 'ended', 'distributed'])
  state?: 'upcoming' | 'active' | 'ended' | 'distributed';
}

export class IeoSubmitDto {
  @ApiProperty({ description: 'A project id from lh/newcoin/config' })
  @IsNotEmpty({ message: 'error.ieo_project_required' })
  @Type(() => Number)
  @IsInt({ message: 'error.ieo_project_required' })
  @Min(1, { message: 'error.ieo_project_required' })
  project_id: number;

  @ApiProperty({ example: '100', description: 'New-coin units to subscribe for; the payment is quantity × price' })
  @IsNotEmpty({ message: 'error.quantity_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  quantity: string;

  @ApiProperty({ description: 'Client-generated id (required), kept for a retry of the same subscription: a retry subscribes once' })
  @IsNotEmpty()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id: string;
}

export class IeoOrderInfoDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'One project: its published result and your own request, allocation and refund' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.ieo_not_found' })
  @Min(1, { message: 'error.ieo_not_found' })
  project_id?: number;
}

/** Operator: the editable fields of a project (all optional on an edit). */
export class IeoProjectEditDto {
  @ApiPropertyOptional({ example: 'Kestrel Token' })
  @Optional()
  @Trim()
  @IsNotEmpty({ message: 'error.ieo_name_required' })
  @IsString({ message: 'error.ieo_name_required' })
  @MaxLength(64)
  name?: string;

  @ApiPropertyOptional({ example: '0.5', description: 'Issue price in the purchase currency (at most 8 decimals)' })
  @Optional()
  @IsString()
  @Matches(PRICE_RE, { message: 'error.ieo_price_invalid' })
  price?: string;

  @ApiPropertyOptional({ example: '1000000', description: 'Total issued' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  supply?: string;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z' })
  @Optional()
  @Matches(ZONED_TIME_RE, { message: 'error.ieo_window_invalid' })
  @IsISO8601({ strict: true }, { message: 'error.ieo_window_invalid' })
  start_at?: string;

  @ApiPropertyOptional({ example: '2026-12-08T00:00:00Z' })
  @Optional()
  @Matches(ZONED_TIME_RE, { message: 'error.ieo_window_invalid' })
  @IsISO8601({ strict: true }, { message: 'error.ieo_window_invalid' })
  end_at?: string;

  @ApiPropertyOptional({ example: '100', description: 'Per-user minimum of one subscription (new-coin units)' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  min_qty?: string;

  @ApiPropertyOptional({ example: '10000', description: 'Per-user maximum of all their subscriptions (new-coin units)' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  max_qty?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(255)
  website?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(255)
  white_paper?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(2000)
  intro?: string;

  @ApiProperty()
  @RequiredReason()
  reason: string;
}

export class IeoProjectCreateDto {
  @ApiProperty({ example: 'KST', description: 'The new coin (a new currency)' })
  @IsNotEmpty({ message: 'error.ieo_symbol_invalid' })
  @IsString({ message: 'error.ieo_symbol_invalid' })
  @Matches(/^[A-Z][A-Z0-9]{1,11}$/, { message: 'error.ieo_symbol_invalid' })
  symbol: string;

  @ApiProperty({ example: 'Kestrel Token' })
  @Trim()
  @IsNotEmpty({ message: 'error.ieo_name_required' })
  @IsString({ message: 'error.ieo_name_required' })
  @MaxLength(64)
  name: string;

  @ApiProperty({ example: 4, description: "The coin's precision (0–8 decimals): allocations are truncated to it" })
  @Type(() => Number)
  @IsInt({ message: 'error.ieo_decimals_invalid' })
  @Min(0, { message: 'error.ieo_decimals_invalid' })
  @Max(8, { message: 'error.ieo_decimals_invalid' })
  decimals: number;

  @ApiPropertyOptional({ example: 3, description: 'Purchase currency (default USDT)' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  currency_id?: number;

  @ApiProperty({ example: '0.5', description: 'Issue price in the purchase currency (at most 8 decimals)' })
  @IsNotEmpty({ message: 'error.ieo_price_invalid' })
  @IsString({ message: 'error.ieo_price_invalid' })
  @Matches(PRICE_RE, { message: 'error.ieo_price_invalid' })
  price: string;

  @ApiProperty({ example: '1000000', description: 'Total issued' })
  @IsNotEmpty({ message: 'error.amount_invalid' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  supply: string;

  @ApiProperty({ example: '2026-12-01T00:00:00Z' })
  @Matches(ZONED_TIME_RE, { message: 'error.ieo_window_invalid' })
  @IsISO8601({ strict: true }, { message: 'error.ieo_window_invalid' })
  start_at: string;

  @ApiProperty({ example: '2026-12-08T00:00:00Z' })
  @Matches(ZONED_TIME_RE, { message: 'error.ieo_window_invalid' })
  @IsISO8601({ strict: true }, { message: 'error.ieo_window_invalid' })
  end_at: string;

  @ApiProperty({ example: '100', description: 'Per-user minimum of one subscription (new-coin units)' })
  @IsNotEmpty({ message: 'error.amount_invalid' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  min_qty: string;

  @ApiProperty({ example: '10000', description: 'Per-user maximum of all their subscriptions (new-coin units)' })
  @IsNotEmpty({ message: 'error.amount_invalid' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  max_qty: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(255)
  website?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(255)
  white_paper?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(2000)
  intro?: string;

  @ApiProperty()
  @RequiredReason()
  reason: string;
}

/** Operator: list a spot market for a distributed project's coin (a recorded market-configuration command). */
export class IeoMarketDto {
  @ApiProperty({ example: '0.0001' })
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  tick_size: string;

  @ApiProperty({ example: '0.01' })
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  lot_size: string;

  @ApiPropertyOptional({ example: '0.01', description: 'Default: the lot size' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  min_qty?: string;

  @ApiPropertyOptional({ example: '0.001' })
  @Optional()
  @IsString()
  @Matches(FEE_RE, { message: 'error.rate_invalid' })
  maker_fee?: string;

  @ApiPropertyOptional({ example: '0.001' })
  @Optional()
  @IsString()
  @Matches(FEE_RE, { message: 'error.rate_invalid' })
  taker_fee?: string;

  @ApiProperty()
  @RequiredReason()
  reason: string;
}
