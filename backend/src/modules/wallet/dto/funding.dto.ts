import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../../../infra/http/page.dto';
import { AMOUNT_RE, CLIENT_ID_RE } from './wallet.dto';
import { ReasonDto } from '../../../infra/http/reason.dto';
import { LowerCase, Optional, RequiredReason } from '../../../infra/http/validation';

const CHAIN_RE = /^[A-Za-z0-9]{2,16}$/;

/** A deposit report's amount: at most 15 integer digits (below 10^15 coins), well within a posting's amount (at most 18 integer digits; balances have no bound). */
const DEPOSIT_AMOUNT_RE = /^\d{1,15}(\.\d{1,18})?$/;

export class CurrencyDto {
  @ApiProperty({ example: 3 })
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  @Min(1, { message: 'error.currency_invalid' })
  currency_id: number;
}

export class CurrencyChainDto extends CurrencyDto {
  @ApiProperty({ example: 'TRC20' })
  @IsNotEmpty({ message: 'error.chain_invalid' })
  @IsString({ message: 'error.chain_invalid' })
  @Matches(CHAIN_RE, { message: 'error.chain_invalid' })
  chain: string;
}

export class OptionalChainDto extends CurrencyDto {
  @ApiPropertyOptional({ example: 'TRC20' })
  @Optional()
  @IsString({ message: 'error.chain_invalid' })
  @Matches(CHAIN_RE, { message: 'error.chain_invalid' })
  chain?: string;
}

export class DepositRequestDto extends CurrencyChainDto {
  @ApiProperty({ example: '100' })
  @IsNotEmpty({ message: 'error.amount_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(DEPOSIT_AMOUNT_RE, { message: 'error.amount_invalid' })
  amount: string;

  @ApiProperty({ description: 'Id of the proof image from POST upload/image' })
  @IsNotEmpty({ message: 'error.proof_required' })
  @IsString({ message: 'error.proof_required' })
  @IsUUID('all', { message: 'error.proof_required' })
  @LowerCase()
  image_id: string;

  @ApiPropertyOptional({ description: 'Client-generated id: a retry reports one deposit' })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class WithdrawDto {
  @ApiProperty({ description: 'An address-book entry (wallet/get_address)' })
  @IsNotEmpty({ message: 'error.address_not_set' })
  @Type(() => Number)
  @IsInt({ message: 'error.address_not_set' })
  @Min(1, { message: 'error.address_not_set' })
  address_id: number;

  @ApiProperty({ example: '50', description: 'Leaves the balance, fee included' })
  @IsNotEmpty({ message: 'error.amount_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  amount: string;

  @ApiProperty({ example: '135790' })
  @IsNotEmpty({ message: 'error.fund_password_required' })
  @IsString({ message: 'error.fund_password_required' })
  @Matches(/^\d{6}$/, { message: 'error.fund_password_format' })
  password: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @Optional()
  @IsString()
  @MaxLength(200, { message: 'error.remark_too_long' })
  remark?: string;

  @ApiPropertyOptional({ description: 'Client-generated id: a retry makes one request' })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class AddAddressDto extends CurrencyChainDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.address_required' })
  @IsString({ message: 'error.address_required' })
  @MaxLength(120, { message: 'error.address_invalid' })
  address: string;

  @ApiProperty({ description: 'Fund password (6 digits)' })
  @IsNotEmpty({ message: 'error.fund_password_required' })
  @IsString({ message: 'error.fund_password_required' })
  @Matches(/^\d{6}$/, { message: 'error.fund_password_format' })
  password: string;

  @ApiProperty({ description: 'Code sent with purpose "address" (sms_send / sms_mail)' })
  @IsNotEmpty({ message: 'error.code_required' })
  @IsString({ message: 'error.code_required' })
  @Matches(/^\d{6}$/, { message: 'error.code_format' })
  code: string;

  @ApiPropertyOptional({ enum: ['sms', 'email'], description: 'Where the code was sent (default: phone if the account has one)' })
  @Optional()
  @IsIn(['sms', 'email'])
  channel?: 'sms' | 'email';

  @ApiPropertyOptional({ maxLength: 64 })
  @Optional()
  @IsString()
  @MaxLength(64, { message: 'error.remark_too_long' })
  remark?: string;
}

export class AddressIdDto {
  @ApiProperty()
  @Type(() => Number)
  @IsInt({ message: 'error.address_not_found' })
  @Min(1, { message: 'error.address_not_found' })
  id: number;
}

export class AddressListDto {
  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  currency_id?: number;
}

export class RecordQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['review', 'passed', 'rejected'] })
  @Optional()
  @IsIn(['review', 'passed', 'rejected'])
  status?: 'review' | 'passed' | 'rejected';

  @ApiPropertyOptional({ description: 'One record by its id (a page with no item when there is none of that id among those listed)' })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2147483647)
  id?: number;
}

export class AdminRecordQueryDto extends RecordQueryDto {
  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt()
  user_id?: number;
}

/** Paying a withdrawal out: the reason (kept with the decision), and the payout's transaction id when there is one. */
export class ApproveWithdrawalDto extends ReasonDto {
  @ApiPropertyOptional({ description: 'On-chain transaction id of the payout' })
  @Optional()
  @IsString()
  @MaxLength(200)
  tx_hash?: string;
}

export class FundingRejectDto {
  @ApiProperty({ description: 'Shown to the user' })
  @RequiredReason()
  reason: string;
}

export class CoinConfigDto {
  @ApiPropertyOptional({ example: '10' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  min_deposit?: string;

  @ApiPropertyOptional({ example: '10' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  min_withdraw?: string;

  @ApiPropertyOptional({ example: '1' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  withdraw_fee?: string;

  @ApiProperty()
  @RequiredReason()
  reason: string;
}

export class ChainConfigDto {
  @ApiPropertyOptional({ description: 'The exchange deposit address on this chain ("" removes it)' })
  @Optional()
  @IsString()
  @MaxLength(120)
  deposit_address?: string;

  @ApiPropertyOptional({ description: 'true/false' })
  @Optional()
  @IsString()
  @Matches(/^(true|false|1|0)$/)
  enabled?: string;

  @ApiProperty()
  @RequiredReason()
  reason: string;
}
