import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { Optional } from '../../../infra/http/validation';

const DECIMAL = /^\d{1,18}(\.\d{1,18})?$/;

export class PlaceOrderDto {
  @ApiProperty({ example: 'BTC/USDT' })
  @IsNotEmpty({ message: 'error.market_not_found' })
  @IsString({ message: 'error.market_not_found' })
  @MaxLength(32, { message: 'error.market_not_found' })
  symbol: string;

  @ApiProperty({ enum: ['buy', 'sell'] })
  @IsIn(['buy', 'sell'])
  side: 'buy' | 'sell';

  @ApiProperty({ enum: ['limit', 'market'] })
  @IsIn(['limit', 'market'])
  type: 'limit' | 'market';

  @ApiPropertyOptional({ example: '65000.5', description: 'Limit price (required for limit orders); for a market order, the worst price accepted' })
  @ValidateIf((o: PlaceOrderDto) => o.type === 'limit' || o.price !== undefined)
  @IsNotEmpty({ message: 'error.price_invalid' })
  @IsString({ message: 'error.price_invalid' })
  @Matches(DECIMAL, { message: 'error.price_invalid' })
  price?: string;

  @ApiPropertyOptional({ example: '0.015', description: 'Base quantity (required except for a market buy by amount)' })
  @ValidateIf((o: PlaceOrderDto) => !(o.type === 'market' && o.side === 'buy') || o.quantity !== undefined)
  @IsNotEmpty({ message: 'error.quantity_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(DECIMAL)
  quantity?: string;

  @ApiPropertyOptional({ example: '100', description: 'Market buy: quote amount to spend (e.g. USDT)' })
  @ValidateIf((o: PlaceOrderDto) => (o.type === 'market' && o.side === 'buy' && o.quantity === undefined) || o.amount !== undefined)
  @IsNotEmpty({ message: 'error.amount_empty' })
  @IsString({ message: 'error.amount_invalid' })
  @Matches(DECIMAL)
  amount?: string;

  @ApiPropertyOptional({ description: 'Client-generated id (1–64 of A–Z a–z 0–9 _ -): a retry with the same id places one order' })
  @Optional()
  @IsString()
  @Matches(/^[\w-]{1,64}$/)
  client_order_id?: string;
}

export class CancelOrderDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.order_not_found' })
  @IsString({ message: 'error.order_not_found' })
  @Matches(/^\d{1,15}$/, { message: 'error.order_not_found' })
  order_id: string;
}
