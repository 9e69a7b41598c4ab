import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsString, IsUUID, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../../infra/http/page.dto';
import { Optional, Trim } from '../../../infra/http/validation';
import type { MessageKey } from '../../../infra/i18n/catalogue';
import type { IdType } from '../identity-verification.entity';

/** "ab 12-3456 x" → "AB12-3456X": ID numbers are compared and stored in one form. */
const NormalizeIdNumber = () => Transform(({ value }) => (typeof value === 'string' ? value.replace(/\s+/g, '').toUpperCase() : value));
const ID_NUMBER_RE = /^[A-Z0-9][A-Z0-9-]{2,30}[A-Z0-9]$/;

export const ID_TYPES: IdType[] = ['id_card', 'passport', 'driving_licence'];

/** An upload id from `POST upload/image`; `required` is the message when it is missing. */
const ImageId = (required: MessageKey) =>
  applyDecorators(IsNotEmpty({ message: required }), IsString({ message: required }), IsUUID('all', { message: 'kyc.image_invalid' }));

/** `POST user/real_name`: the spec's verification form; every field is required (spec §5). */
export class BasicVerificationDto {
  @ApiProperty({ maxLength: 64 })
  @Trim(true)
  @IsNotEmpty({ message: 'kyc.country_required' })
  @IsString({ message: 'kyc.country_required' })
  @MaxLength(64, { message: 'kyc.country_invalid' })
  country: string;

  @ApiProperty({ maxLength: 100, description: 'Full name as on the ID' })
  @Trim(true)
  @IsNotEmpty({ message: 'kyc.name_required' })
  @IsString({ message: 'kyc.name_required' })
  @MaxLength(100, { message: 'kyc.name_invalid' })
  name: string;

  @ApiProperty({ description: '4–32 letters, digits or dashes (spaces dropped, upper-cased)' })
  @NormalizeIdNumber()
  @IsNotEmpty({ message: 'kyc.id_number_required' })
  @IsString({ message: 'kyc.id_number_required' })
  @Matches(ID_NUMBER_RE, { message: 'kyc.id_number_invalid' })
  id_number: string;

  @ApiProperty({ maxLength: 255, description: 'Contact address' })
  @Trim(true)
  @IsNotEmpty({ message: 'kyc.address_required' })
  @IsString({ message: 'kyc.address_required' })
  @MaxLength(255, { message: 'kyc.address_invalid' })
  address: string;

  @ApiProperty({ description: 'Upload id: the front of the ID' })
  @ImageId('kyc.front_image_required')
  front_image: string;

  @ApiProperty({ description: 'Upload id: the back of the ID' })
  @ImageId('kyc.back_image_required')
  back_image: string;

  @ApiProperty({ description: 'Upload id: a photo of the user holding the ID' })
  @ImageId('kyc.hand_image_required')
  hand_image: string;
}

/** `POST user/real_name2`: a second document check (needs basic approved). */
export class AdvancedVerificationDto {
  @ApiProperty({ enum: ID_TYPES })
  @IsNotEmpty({ message: 'kyc.id_type_invalid' })
  @IsIn(ID_TYPES, { message: 'kyc.id_type_invalid' })
  id_type: IdType;

  @ApiProperty({ description: '4–32 letters, digits or dashes (spaces dropped, upper-cased)' })
  @NormalizeIdNumber()
  @IsNotEmpty({ message: 'kyc.id_number_required' })
  @IsString({ message: 'kyc.id_number_required' })
  @Matches(ID_NUMBER_RE, { message: 'kyc.id_number_invalid' })
  id_number: string;

  @ApiProperty({ description: 'Upload id: the front of the document (the photo page of a passport)' })
  @ImageId('kyc.front_image_required')
  front_image: string;

  @ApiPropertyOptional({ description: 'Upload id: the back of the document; required except for a passport' })
  @ValidateIf((o: AdvancedVerificationDto) => o.id_type !== 'passport' || o.back_image !== undefined)
  @ImageId('kyc.back_image_required')
  back_image?: string;

  @ApiProperty({ description: 'Upload id: a photo of the user holding the document' })
  @ImageId('kyc.hand_image_required')
  hand_image: string;
}

export class VerificationQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['review', 'verified', 'rejected'] })
  @Optional()
  @IsIn(['review', 'verified', 'rejected'])
  status?: 'review' | 'verified' | 'rejected';

  @ApiPropertyOptional({ enum: [1, 2] })
  @Optional()
  @Type(() => Number)
  @IsIn([1, 2])
  level?: 1 | 2;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt()
  user_id?: number;
}

export class ApproveDto {
  @ApiPropertyOptional({ maxLength: 255, description: 'Optional note, kept in the event' })
  @Optional()
  @Trim(true)
  @IsString({ message: 'kyc.reason_invalid' })
  @MaxLength(255, { message: 'kyc.reason_invalid' })
  reason?: string;
}

export class KycRejectDto {
  @ApiProperty({ maxLength: 255, description: 'Shown to the user' })
  @Trim(true)
  @IsNotEmpty({ message: 'kyc.reason_required' })
  @IsString({ message: 'kyc.reason_required' })
  @MaxLength(255, { message: 'kyc.reason_invalid' })
  reason: string;
}
