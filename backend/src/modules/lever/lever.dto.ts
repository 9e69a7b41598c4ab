import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { AMOUNT_RE, CLIENT_ID_RE } from '../wallet/dto/wallet.dto';
import { Optional } from '../../infra/http/validation';

export class LeverSymbolDto {
  @ApiProperty({ example: 'BTC/USDT' })
  @IsNotEmpty({ message: 'error.market_not_found' })
  @IsString({ message: 'error.market_not_found' })
  @MaxLength(32, { message: 'error.market_not_found' })
  symbol: string;
}

export class LeverSubmitDto extends LeverSymbolDto {
  @ApiProperty({ enum: ['long', 'short'] })
  @IsIn(['long', 'short'], { message: 'error.lever_side_invalid' })
  side: 'long' | 'short';

  @ApiProperty({ enum: ['market', 'limit'] })
  @IsIn(['market', 'limit'], { message: 'error.lever_type_invalid' })
  type: 'market' | 'limit';

  @ApiProperty({ example: '10', description: "A positive whole number, at least 1 (at most 18 digits); outside the market's range: 2410" })
  @IsNotEmpty({ message: 'error.lots_required' })
  @IsString({ message: 'error.lots_integer' })
  // Up to 18 digits, so any whole number a client sends reaches the market's range check (2410).
  @Matches(/^\d{1,18}$/, { message: 'error.lots_integer' })
  lots: string;

  @ApiProperty({ example: 10, description: 'One of the market multiples (lever/deal)' })
  @IsNotEmpty({ message: 'error.multiple_invalid' })
  @Type(() => Number)
  @IsInt({ message: 'error.multiple_invalid' })
  multiple: number;

  @ApiPropertyOptional({ description: 'Limit: the mark price at which the position opens' })
  @Optional()
  @IsString()
  @Matches(AMOUNT_RE, { message: 'error.price_invalid' })
  price?: string;

  @ApiProperty({ description: 'Take-profit price (long: above the price; short: below)' })
  @IsNotEmpty({ message: 'error.tp_required' })
  @IsString({ message: 'error.tp_required' })
  @Matches(AMOUNT_RE, { message: 'error.price_invalid' })
  take_profit: string;

  @ApiProperty({ description: 'Stop-loss price (long: below the price; short: above)' })
  @IsNotEmpty({ message: 'error.sl_required' })
  @IsString({ message: 'error.sl_required' })
  @Matches(AMOUNT_RE, { message: 'error.price_invalid' })
  stop_loss: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class LeverListDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['holding', 'pending', 'closed', 'cancelled'], description: 'Default: holding' })
  @Optional()
  @IsIn(['holding', 'pending', 'closed', 'cancelled'])
  status: 'holding' | 'pending' | 'closed' | 'cancelled' = 'holding';
}

export class LeverIdDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.position_not_found' })
  @IsString({ message: 'error.position_not_found' })
  @Matches(/^\d{1,18}$/, { message: 'error.position_not_found' })
  id: string;
}

export class LeverTpSlDto extends LeverIdDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.tp_required' })
  @IsString({ message: 'error.tp_required' })
  @Matches(AMOUNT_RE, { message: 'error.price_invalid' })
  take_profit: string;

  @ApiProperty()
  @IsNotEmpty({ message: 'error.sl_required' })
  @IsString({ message: 'error.sl_required' })
  @Matches(AMOUNT_RE, { message: 'error.price_invalid' })
  stop_loss: string;
}
