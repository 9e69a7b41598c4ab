import { IsDefined, IsIn, IsObject, ValidateBy } from 'class-validator';

/** A client's request id: a string of 1–64 characters or a safe integer. */
export function isRequestId(value: unknown): value is string | number {
  return (typeof value === 'string' && value.length >= 1 && value.length <= 64) || Number.isSafeInteger(value);
}

/** The `order` message of the Socket.IO channel: `params` is then checked against the method's own DTO. */
export class OrderRequestDto {
  @IsDefined({ message: 'error.field_required' })
  @ValidateBy({ name: 'isRequestId', validator: { validate: isRequestId } })
  id: string | number;

  @IsDefined({ message: 'error.field_required' })
  @IsIn(['place', 'cancel'])
  method: 'place' | 'cancel';

  @IsDefined({ message: 'error.field_required' })
  @IsObject()
  params: object;
}
