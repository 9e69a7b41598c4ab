import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsNotEmpty, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { HouseFundingDto } from '../ledger/house-funding';
import { AMOUNT_RE, CLIENT_ID_RE } from '../wallet/dto/wallet.dto';
import { ReasonDto } from '../../infra/http/reason.dto';
import { LowerCase, Optional } from '../../infra/http/validation';

const RATE_RE = /^0(\.\d{1,8})?$/;
const UPLOAD_ID_RE = /^[0-9a-fA-F-]{36}$/;

/** The spec's filter (§4) and overdue; `approving` includes an approval whose payment is on its way. */
export const LOAN_FILTERS = ['all', 'approving', 'rejected', 'approved', 'repaying', 'repaid', 'overdue'] as const;
export type LoanFilter = (typeof LOAN_FILTERS)[number];

export class LoanListDto {
  @ApiPropertyOptional({ description: 'With amount and days: the repayment preview for this product' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.loan_product_not_found' })
  @Min(1, { message: 'error.loan_product_not_found' })
  product_id?: number;

  @ApiPropertyOptional({ example: '1000' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  amount?: string;

  @ApiPropertyOptional({ example: 30 })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.loan_cycle_invalid' })
  @Min(1, { message: 'error.loan_cycle_invalid' })
  days?: number;
}

export class LoanApplyDto {
  @ApiProperty({ description: 'A product id from borrow/list' })
  @IsNotEmpty({ message: 'error.loan_product_required' })
  @Type(() => Number)
  @IsInt({ message: 'error.loan_product_required' })
  @Min(1, { message: 'error.loan_product_required' })
  product_id: number;

  @ApiProperty({ example: '1000', description: 'The expected amount, within the product range' })
  @IsNotEmpty({ message: 'error.loan_amount_required' })
  @IsString({ message: 'error.loan_amount_required' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  amount: string;

  @ApiProperty({ example: 30, description: 'The repayment cycle in days: one of the product cycles' })
  @IsNotEmpty({ message: 'error.loan_cycle_required' })
  @Type(() => Number)
  @IsInt({ message: 'error.loan_cycle_required' })
  @Min(1, { message: 'error.loan_cycle_required' })
  days: number;

  @ApiProperty({ description: 'Upload id (upload/image) of the ID front photo' })
  @IsNotEmpty({ message: 'error.loan_images_required' })
  @IsString({ message: 'error.loan_images_required' })
  @Matches(UPLOAD_ID_RE, { message: 'upload.not_found' })
  front_image: string;

  @ApiProperty({ description: 'Upload id of the ID back photo' })
  @IsNotEmpty({ message: 'error.loan_images_required' })
  @IsString({ message: 'error.loan_images_required' })
  @Matches(UPLOAD_ID_RE, { message: 'upload.not_found' })
  back_image: string;

  @ApiProperty({ description: 'Upload id of the passport photo' })
  @IsNotEmpty({ message: 'error.loan_images_required' })
  @IsString({ message: 'error.loan_images_required' })
  @Matches(UPLOAD_ID_RE, { message: 'upload.not_found' })
  passport_image: string;

  @ApiPropertyOptional({ description: 'Client-generated id: a retry applies once' })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class LoanOrderListDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: LOAN_FILTERS, default: 'all' })
  @Optional()
  @IsIn(LOAN_FILTERS, { message: 'error.loan_status_invalid' })
  status?: LoanFilter;
}

export class LoanOrderIdDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.loan_order_required' })
  @Type(() => Number)
  @IsInt({ message: 'error.loan_order_required' })
  @Min(1, { message: 'error.loan_order_required' })
  order_id: number;
}

/** borrow/order/back: repay from the trade account. */
export class LoanRepayDto extends LoanOrderIdDto {
  @ApiProperty({ example: '100', description: 'At most the remaining amount (partial repayments allowed)' })
  @IsNotEmpty({ message: 'error.loan_repay_amount_required' })
  @IsString({ message: 'error.loan_repay_amount_required' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  amount: string;

  @ApiPropertyOptional({ description: 'Client-generated id: a retry repays once' })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

/** borrow/back/apply: an external transfer, reported with its image. */
export class LoanRepayProofDto extends LoanRepayDto {
  @ApiProperty({ description: 'Upload id (upload/image) of the transfer image' })
  @IsNotEmpty({ message: 'error.loan_repay_image_required' })
  @IsString({ message: 'error.loan_repay_image_required' })
  @Matches(UPLOAD_ID_RE, { message: 'upload.not_found' })
  @LowerCase()
  image_id: string;
}

export class LoanBackListDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only this loan' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.loan_order_required' })
  @Min(1, { message: 'error.loan_order_required' })
  order_id?: number;
}

export class LoanRepayAddressDto {
  @ApiPropertyOptional({ description: 'The loan: its currency chains (default USDT)' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.loan_order_required' })
  @Min(1, { message: 'error.loan_order_required' })
  order_id?: number;
}

/** Operator: the application list. */
export class AdminLoanListDto extends LoanOrderListDto {
  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  user_id?: number;
}

export class AdminRepaymentListDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['review', 'approved', 'rejected', 'pending', 'done', 'failed'] })
  @Optional()
  @IsIn(['review', 'approved', 'rejected', 'pending', 'done', 'failed'])
  status?: string;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  order_id?: number;
}

/** Operator: a product (all optional on an edit), with the reason for the change. */
export class LoanProductEditDto extends ReasonDto {
  @ApiPropertyOptional({ example: 'usdt-standard' })
  @Optional()
  @IsString()
  @Matches(/^[a-z0-9-]{2,32}$/)
  code?: string;

  @ApiPropertyOptional({ example: 'USDT loan' })
  @Optional()
  @IsString()
  @MaxLength(64)
  name?: string;

  @ApiPropertyOptional({ example: 'Kestrel Lending Pool' })
  @Optional()
  @IsString()
  @MaxLength(64)
  lender?: string;

  @ApiPropertyOptional({ example: 3 })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  currency_id?: number;

  @ApiPropertyOptional({ example: '100' })
  @Optional()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  min_amount?: string;

  @ApiPropertyOptional({ example: '50000' })
  @Optional()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  max_amount?: string;

  @ApiPropertyOptional({ example: '7,15,30', description: 'Days, comma-separated (or a JSON array)' })
  @Optional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.split(',').map((x) => Number(x.trim())) : Array.isArray(value) ? value.map(Number) : value,
  )
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(12)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(3650, { each: true })
  cycles?: number[];

  @ApiPropertyOptional({ example: '0.001', description: 'Daily interest rate (0 ≤ rate < 1, at most 8 decimals)' })
  @Optional()
  @Matches(RATE_RE)
  daily_rate?: string;

  @ApiPropertyOptional({ example: 'true' })
  @Optional()
  @IsIn(['true', 'false', '1', '0'])
  enabled?: string;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt()
  sort?: number;
}

/** A recorded funding of the lending pool (the same fields as the treasury's). */
export class LoanPoolFundDto extends HouseFundingDto {}
