import { ApiProperty } from '@nestjs/swagger';
import { Transform, TransformFnParams } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsDefined } from 'class-validator';
import { PlaceOrderDto } from './place-order.dto';

/** The most orders one POST coin/batch_trade may carry. */
export const MAX_BATCH_ORDERS = 10;

/** Form bodies carry `orders` as a JSON string; what does not parse stays a string (and fails `IsArray`). */
function parseJsonString({ value }: TransformFnParams): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * Only the list is checked here (1–10 entries); each entry is checked on its own against
 * PlaceOrderDto, so one bad order is that order's answer, not the whole request's.
 */
export class BatchOrdersDto {
  @ApiProperty({
    type: PlaceOrderDto,
    isArray: true,
    minItems: 1,
    maxItems: MAX_BATCH_ORDERS,
    description: `1–${MAX_BATCH_ORDERS} orders, each with the fields of POST coin/trade; in a form-encoded body, a JSON string of that array`,
  })
  @Transform(parseJsonString)
  @IsDefined({ message: 'error.field_required' })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_BATCH_ORDERS)
  orders: unknown[];
}
