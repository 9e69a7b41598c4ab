import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';

export class NoticeReadDto {
  @ApiProperty({ description: 'The message id' })
  @Matches(/^[1-9]\d{0,17}$/, { message: 'error.notice_id_invalid' })
  id: string;
}
