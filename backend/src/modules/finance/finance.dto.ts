import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsString, Matches, MaxLength, Min, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { AMOUNT_RE, CLIENT_ID_RE } from '../wallet/dto/wallet.dto';
import { Optional, RequiredReason, ZONED_TIME_RE } from '../../infra/http/validation';
import { jsonField } from '../../infra/i18n/localized-texts';

const RATE_RE = /^\d{1,4}(\.\d{1,8})?$/;
const FLAG_RE = /^(true|false|1|0)$/;

export class ProductIdDto {
  @ApiProperty({ description: 'A product id from lh/deposit/config' })
  @IsNotEmpty({ message: 'error.wealth_product_not_found' })
  @Type(() => Number)
  @IsInt({ message: 'error.wealth_product_not_found' })
  @Min(1, { message: 'error.wealth_product_not_found' })
  id: number;
}

export class ProductListDto {
  @ApiProperty({ enum: [1, 2], description: '1 = hosting (fixed-term and the flexible fund), 2 = mining-machine rental' })
  @IsNotEmpty({ message: 'error.wealth_type_invalid' })
  @Type(() => Number)
  @IsIn([1, 2], { message: 'error.wealth_type_invalid' })
  type: 1 | 2;
}

/** lh/deposit. The spec's order of prompts: amount empty, below the minimum, agreement (the last two in the service). */
export class PurchaseDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.wealth_product_not_found' })
  @Type(() => Number)
  @IsInt({ message: 'error.wealth_product_not_found' })
  @Min(1, { message: 'error.wealth_product_not_found' })
  product_id: number;

  @ApiProperty({ example: '1000', description: 'Custody amount in USDT, from the trust account' })
  @IsNotEmpty({ message: 'error.amount_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  amount: string;

  @ApiPropertyOptional({ description: '1/true: the service agreement is accepted (required)' })
  @Optional()
  @IsString({ message: 'error.wealth_agreement_required' })
  agree?: string;

  @ApiPropertyOptional({ description: 'Client-generated id: a retry buys once' })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class RedeemDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.wealth_order_not_found' })
  @IsString({ message: 'error.wealth_order_not_found' })
  @Matches(/^\d{1,18}$/, { message: 'error.wealth_order_not_found' })
  order_id: string;

  @ApiPropertyOptional({ description: '1/true: only show the penalty and refund, change nothing' })
  @Optional()
  @IsString()
  @Matches(FLAG_RE)
  preview?: string;
}

export class WealthOrderListDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['hosting', 'completed', 'redeemed'], description: 'Default: hosting' })
  @Optional()
  @IsIn(['hosting', 'completed', 'redeemed'])
  status: 'hosting' | 'completed' | 'redeemed' = 'hosting';
}

/** Operators: the product's settings. On edit every field is optional; a reason is always required. */
export class ProductEditDto {
  @ApiPropertyOptional({ enum: ['fixed', 'flexible', 'mining'] })
  @Optional()
  @IsIn(['fixed', 'flexible', 'mining'])
  kind?: 'fixed' | 'flexible' | 'mining';

  @ApiPropertyOptional({ example: 'hosting-30d' })
  @Optional()
  @IsString()
  @Matches(/^[\w-]{1,40}$/)
  code?: string;

  @ApiPropertyOptional({ example: '30-day hosting' })
  @Optional()
  @IsString()
  @MaxLength(80)
  name?: string;

  @ApiPropertyOptional({
    description: 'The name per language, a JSON object: {"zh": "30天托管", "jp": …} (1–40 characters each; English is `name`); replaces the whole map',
    example: { zh: '30天托管', jp: '30日間の定期運用' },
  })
  @Optional()
  @Transform(jsonField)
  names?: unknown;

  @ApiPropertyOptional({ example: 30 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  days?: number;

  @ApiPropertyOptional({ example: '100' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  min_amount?: string;

  @ApiPropertyOptional({ example: '0.004' })
  @Optional()
  @IsString()
  @Matches(RATE_RE, { message: 'error.rate_invalid' })
  rate?: string;

  @ApiPropertyOptional({ enum: ['daily', 'total'] })
  @Optional()
  @IsIn(['daily', 'total'])
  rate_mode?: 'daily' | 'total';

  @ApiPropertyOptional({ example: '10000' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  accrual_min?: string;

  @ApiPropertyOptional({ enum: ['ratio', 'tip', 'none'] })
  @Optional()
  @IsIn(['ratio', 'tip', 'none'])
  penalty_mode?: 'ratio' | 'tip' | 'none';

  @ApiPropertyOptional({ example: '0.004' })
  @Optional()
  @IsString()
  @Matches(RATE_RE, { message: 'error.rate_invalid' })
  penalty_ratio?: string;

  @ApiPropertyOptional({ example: '1.5' })
  @Optional()
  @IsString()
  @Matches(RATE_RE, { message: 'error.rate_invalid' })
  penalty_multiple?: string;

  @ApiPropertyOptional({ example: '1000000' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  capacity?: string;

  @ApiPropertyOptional({ description: 'ISO time' })
  @Optional()
  @IsString()
  @Matches(ZONED_TIME_RE)
  @IsISO8601({ strict: true })
  sale_start?: string;

  @ApiPropertyOptional({ description: 'ISO time, or empty for no end' })
  @Optional()
  @IsString()
  @Matches(/^(|\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d))$/)
  @ValidateIf((_, v) => v !== '')
  @IsISO8601({ strict: true })
  sale_end?: string;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt()
  sort?: number;

  @ApiProperty()
  @RequiredReason()
  reason: string;
}
