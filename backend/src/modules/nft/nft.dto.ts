import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsObject, IsString, IsUUID, Matches, MaxLength, Min, MinLength } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { CLIENT_ID_RE } from '../wallet/dto/wallet.dto';
import { FEE_RATE_RE, PRICE_RE } from './nft-terms';
import { ReasonDto } from '../../infra/http/reason.dto';
import { Optional } from '../../infra/http/validation';

/** "1"/"true" → true, "0"/"false" → false (query strings and forms); anything else stays and fails. */
const flag = ({ value }: { value: unknown }) =>
  value === '1' || value === 'true' || value === true ? true : value === '0' || value === 'false' || value === false ? false : value;

export class NftListDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'One item: its details with the public provenance (the list is then empty)' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.nft_item_not_found' })
  @Min(1, { message: 'error.nft_item_not_found' })
  id?: number;

  @ApiPropertyOptional({ description: 'Only the items of this collection' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.nft_collection_not_found' })
  @Min(1, { message: 'error.nft_collection_not_found' })
  collection_id?: number;

  @ApiPropertyOptional({ description: '1: only items for sale now' })
  @Optional()
  @Transform(flag)
  @IsIn([true, false], { message: 'error.nft_filter_invalid' })
  on_sale?: boolean;

  @ApiPropertyOptional({ description: '1: only my items (needs the token)' })
  @Optional()
  @Transform(flag)
  @IsIn([true, false], { message: 'error.nft_filter_invalid' })
  mine?: boolean;
}

export class NftBuyDto {
  @ApiProperty({ description: 'The item to buy (from nft/list)' })
  @IsNotEmpty({ message: 'error.nft_item_required' })
  @Type(() => Number)
  @IsInt({ message: 'error.nft_item_required' })
  @Min(1, { message: 'error.nft_item_required' })
  item_id: number;

  @ApiPropertyOptional({ example: '100', description: 'The price the buyer saw: if the item now asks another price, nothing is bought (2807)' })
  @Optional()
  @IsString({ message: 'error.nft_price_invalid' })
  @Matches(PRICE_RE, { message: 'error.nft_price_invalid' })
  price?: string;

  @ApiProperty({ description: 'Client-generated id (required), kept for a retry of the same purchase: a retry buys once and answers the same sale' })
  @IsNotEmpty()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id: string;
}

export class NftSellDto {
  @ApiProperty({ description: 'The item (yours)' })
  @IsNotEmpty({ message: 'error.nft_item_required' })
  @Type(() => Number)
  @IsInt({ message: 'error.nft_item_required' })
  @Min(1, { message: 'error.nft_item_required' })
  item_id: number;

  @ApiPropertyOptional({ enum: ['list', 'withdraw'], default: 'list', description: 'list (or change the price), or withdraw the listing' })
  @Optional()
  @IsIn(['list', 'withdraw'], { message: 'error.nft_action_invalid' })
  action?: 'list' | 'withdraw';

  @ApiPropertyOptional({ example: '150', description: 'The asking price in USDT (required to list): above 0, at most 8 decimals' })
  @Optional()
  @IsString({ message: 'error.nft_price_invalid' })
  @Matches(PRICE_RE, { message: 'error.nft_price_invalid' })
  price?: string;
}

export class NftOrderListDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['purchase', 'sale', 'listing'], description: 'Without it: purchases and sales together' })
  @Optional()
  @IsIn(['purchase', 'sale', 'listing'], { message: 'error.nft_type_invalid' })
  type?: 'purchase' | 'sale' | 'listing';
}

export class NftCollectionCreateDto extends ReasonDto {
  @ApiProperty({ example: 'Kestrel Genesis' })
  @IsNotEmpty({ message: 'error.nft_name_required' })
  @IsString({ message: 'error.nft_name_required' })
  @MinLength(1, { message: 'error.nft_name_required' })
  @MaxLength(80)
  name: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ example: '0.025', default: '0.025', description: 'Share of each sale to the fee account (0 to 0.5, at most 8 decimals)' })
  @Optional()
  @IsString({ message: 'error.nft_fee_rate_invalid' })
  @Matches(FEE_RATE_RE, { message: 'error.nft_fee_rate_invalid' })
  fee_rate?: string;
}

export class NftMintDto extends ReasonDto {
  @ApiProperty({ example: 'Falcon #1' })
  @IsNotEmpty({ message: 'error.nft_name_required' })
  @IsString({ message: 'error.nft_name_required' })
  @MaxLength(80)
  name: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiProperty({ description: 'An image uploaded with POST /api/admin/nft/images' })
  @IsNotEmpty({ message: 'error.nft_image_required' })
  @IsUUID('all', { message: 'error.nft_image_required' })
  image_id: string;

  @ApiPropertyOptional({ description: 'Metadata: an object of trait → value (JSON text in a form)', example: '{"wing":"gold"}' })
  @Optional()
  @Transform(({ value }) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  })
  @IsObject({ message: 'error.nft_attributes_invalid' })
  attributes?: Record<string, unknown>;

  @ApiPropertyOptional({ example: '100', description: 'A primary price: the item goes on sale by the house at once' })
  @Optional()
  @IsString({ message: 'error.nft_price_invalid' })
  @Matches(PRICE_RE, { message: 'error.nft_price_invalid' })
  price?: string;
}

export class NftPriceDto extends ReasonDto {
  @ApiProperty({ example: '100', description: 'The primary price (house-owned items only)' })
  @IsNotEmpty({ message: 'error.nft_price_invalid' })
  @IsString({ message: 'error.nft_price_invalid' })
  @Matches(PRICE_RE, { message: 'error.nft_price_invalid' })
  price: string;
}

export class NftAdminSalesDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['pending', 'completed', 'released'] })
  @Optional()
  @IsIn(['pending', 'completed', 'released'], { message: 'error.field_invalid' })
  status?: 'pending' | 'completed' | 'released';

  @ApiPropertyOptional({ description: 'One item' })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  item_id?: number;

  @ApiPropertyOptional({ description: 'One user, as buyer or seller' })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  user_id?: number;
}
