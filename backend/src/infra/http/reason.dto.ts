import { ApiProperty } from '@nestjs/swagger';
import { RequiredReason } from './validation';

/**
 * The body of an operator's action that needs only its reason (kept with the event it records);
 * bodies that need more extend it. One class, so the OpenAPI document has one `ReasonDto` schema.
 */
export class ReasonDto {
  @ApiProperty({ description: 'Why (kept with the event)' })
  @RequiredReason()
  reason: string;
}
