import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { Optional } from '../../infra/http/validation';

export class NoticeReadDto {
  @ApiProperty({ description: 'The message id' })
  @Matches(/^[1-9]\d{0,17}$/, { message: 'error.notice_id_invalid' })
  id: string;
}

/** `notice/read_all`: up to the newest message the user was shown (one that came after stays unread). */
export class NoticeReadAllDto {
  @ApiPropertyOptional({ description: 'The newest message id shown: messages after it stay unread (absent: every message)' })
  @Optional()
  @Matches(/^[1-9]\d{0,17}$/, { message: 'error.notice_id_invalid' })
  up_to?: string;
}
