import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsString, Matches, MaxLength, Min, MinLength } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { Optional, RequiredReason, Trim } from '../../infra/http/validation';
import { CLIENT_ID_RE } from '../wallet/dto/wallet.dto';

export const FEEDBACK_CATEGORIES = ['account', 'deposit', 'withdraw', 'trade', 'suggestion', 'other'] as const;
const UPLOAD_ID_RE = /^[0-9a-fA-F-]{36}$/;

export class FeedbackDto {
  @ApiProperty({ enum: FEEDBACK_CATEGORIES })
  @IsIn(FEEDBACK_CATEGORIES, { message: 'error.help_category_invalid' })
  category: string;

  @ApiProperty({ description: '5 to 1000 characters' })
  @Trim()
  @IsString({ message: 'error.help_content_invalid' })
  @MinLength(5, { message: 'error.help_content_invalid' })
  @MaxLength(1000, { message: 'error.help_content_invalid' })
  content: string;

  @ApiPropertyOptional({ description: 'An upload id (upload/image) of the user' })
  @Optional()
  @IsString({ message: 'upload.not_found' })
  @Matches(UPLOAD_ID_RE, { message: 'upload.not_found' })
  image?: string;

  @ApiPropertyOptional({
    description: 'Client-generated id (1–64 letters, digits, _ or -): a retry with it answers the feedback it first sent, and sends nothing more',
  })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class HelpPageDto extends PageQueryDto {}

export class ChatSendDto {
  @ApiPropertyOptional({ description: 'At most 1000 characters; a message has text, an image or both' })
  @Optional()
  @Trim()
  @IsString({ message: 'error.help_text_invalid' })
  @MaxLength(1000, { message: 'error.help_text_invalid' })
  text?: string;

  @ApiPropertyOptional({ description: 'An upload id (upload/image) of the user' })
  @Optional()
  @IsString({ message: 'upload.not_found' })
  @Matches(UPLOAD_ID_RE, { message: 'upload.not_found' })
  image?: string;

  @ApiPropertyOptional({
    description: 'Client-generated id (1–64 letters, digits, _ or -): a retry with it answers the message it first sent, and sends nothing more',
  })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class ChatHistoryDto {
  @ApiPropertyOptional({ description: 'Only messages after this id (a reconnect’s catch-up)' })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.field_invalid' })
  @Min(0, { message: 'error.field_invalid' })
  after?: number;
}

export class ChatReadDto {
  @ApiProperty({ description: 'The last message id seen' })
  @IsNotEmpty({ message: 'error.field_invalid' })
  @Type(() => Number)
  @IsInt({ message: 'error.field_invalid' })
  @Min(0, { message: 'error.field_invalid' })
  message_id: number;
}

export class OperatorReplyDto {
  @ApiProperty()
  @Trim()
  @IsString({ message: 'error.help_text_invalid' })
  @MinLength(1, { message: 'error.help_message_empty' })
  @MaxLength(1000, { message: 'error.help_text_invalid' })
  text: string;

  @ApiPropertyOptional({
    description: 'Client-generated id (1–64 letters, digits, _ or -): a retry with it answers the reply it first sent, and sends nothing more',
  })
  @Optional()
  @IsString()
  @Matches(CLIENT_ID_RE)
  client_id?: string;
}

export class ConversationListDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['open', 'closed'], default: 'open' })
  @Optional()
  @IsIn(['open', 'closed'], { message: 'error.field_invalid' })
  status: 'open' | 'closed' = 'open';

  @ApiPropertyOptional({ description: 'The `next_before` of the page before: the conversations after it (then `page` is not used)' })
  @Optional()
  @IsString({ message: 'error.field_invalid' })
  @Matches(/^\d{1,18}\.\d{1,18}$/, { message: 'error.field_invalid' })
  before?: string;
}

export class FeedbackListDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['open', 'replied'] })
  @Optional()
  @IsIn(['open', 'replied'], { message: 'error.field_invalid' })
  status?: 'open' | 'replied';
}

export class CustomerUrlDto {
  @ApiProperty({ description: 'An https URL of an external service, or empty for the in-app chat' })
  @IsString({ message: 'error.customer_url_invalid' })
  @Matches(/^(https:\/\/[^\s]{3,500})?$/, { message: 'error.customer_url_invalid' })
  url: string;

  @ApiProperty()
  @RequiredReason(255, 'error.reason_required')
  reason: string;
}
