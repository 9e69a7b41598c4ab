import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsString, IsUUID, Matches, Min } from 'class-validator';
import { AMOUNT_RE } from '../wallet/dto/wallet.dto';

export class FlashQuoteDto {
  @ApiProperty({ example: 1, description: 'Coin to sell' })
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  @Min(1, { message: 'error.currency_invalid' })
  from_currency_id: number;

  @ApiProperty({ example: 3, description: 'Coin to receive' })
  @Type(() => Number)
  @IsInt({ message: 'error.currency_invalid' })
  @Min(1, { message: 'error.currency_invalid' })
  to_currency_id: number;

  @ApiProperty({ example: '0.01', description: 'Amount of the coin sold' })
  @IsNotEmpty({ message: 'error.amount_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(AMOUNT_RE, { message: 'error.amount_invalid' })
  amount: string;
}

export class FlashConvertDto {
  @ApiProperty({ description: 'From fpjy/quote; also the idempotency key of the conversion' })
  @IsNotEmpty({ message: 'error.quote_expired' })
  @IsString({ message: 'error.quote_expired' })
  @IsUUID('4', { message: 'error.quote_expired' })
  quote_id: string;
}
