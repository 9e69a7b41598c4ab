import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsString, Matches, Min } from 'class-validator';
import { PageNumber, PageQueryDto } from '../../../infra/http/page.dto';
import { USER_ACCOUNT_TYPES, type UserAccountType } from '../../ledger/ledger-codes';
import { Optional } from '../../../infra/http/validation';

export const AMOUNT_RE = /^\d{1,18}(\.\d{1,18})?$/;
export const CLIENT_ID_RE = /^[\w-]{1,64}$/;

export class WalletListDto {
  @ApiPropertyOptional({ example: 'USD', description: 'Pricing currency for the totals (coin/rate/list); default USD' })
  @Optional()
  @IsString()
  @Matches(/^[A-Za-z]{3,8}$/, { message: 'error.pricing_currency_unknown' })
  pricing?: string;
}

export class AccountCurrencyDto {
  @ApiProperty({ enum: USER_ACCOUNT_TYPES })
  @IsIn(USER_ACCOUNT_TYPES as unknown as string[], { message: 'error.account_type_invalid' })
  account: UserAccountType;

  @ApiProperty({ example: 3 })
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  @Min(1, { message: 'error.currency_invalid' })
  currency_id: number;
}

export class WalletDetailDto extends AccountCurrencyDto {
  @PageNumber()
  page: number = 1;
}

export class WalletLogDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Ledger code (spec §3), e.g. 200' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.ledger_code_invalid' })
  code?: number;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  currency_id?: number;

  @ApiPropertyOptional({ enum: USER_ACCOUNT_TYPES })
  @Optional()
  @IsIn(USER_ACCOUNT_TYPES as unknown as string[], { message: 'error.account_type_invalid' })
  account?: UserAccountType;
}

export class CurChangeDto {
  @ApiPropertyOptional({ description: 'Only this currency' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  currency_id?: number;
}

export class TransferDto {
  @ApiProperty({ enum: USER_ACCOUNT_TYPES })
  @IsIn(USER_ACCOUNT_TYPES as unknown as string[], { message: 'error.account_type_invalid' })
  from: UserAccountType;

  @ApiProperty({ enum: USER_ACCOUNT_TYPES })
  @IsIn(USER_ACCOUNT_TYPES as unknown as string[], { message: 'error.account_type_invalid' })
  to: UserAccountType;

  @ApiProperty({ example: 3 })
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  @Min(1, { message: 'error.currency_invalid' })
  currency_id: number;

  @ApiProperty({ example: '100' })
  @IsNotEmpty({ message: 'error.amount_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  amount: string;

  @ApiPropertyOptional({ description: 'Client-generated id: a retry with the same id transfers once' })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}
