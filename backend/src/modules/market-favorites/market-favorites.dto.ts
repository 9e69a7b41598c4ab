import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class FavoriteSymbolDto {
  @ApiProperty({ example: 'BTC/USDT' })
  @IsNotEmpty({ message: 'error.favorite_market_unknown' })
  @IsString({ message: 'error.favorite_market_unknown' })
  @MaxLength(32, { message: 'error.favorite_market_unknown' })
  symbol: string;
}
