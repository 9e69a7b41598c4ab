import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsNotEmpty, IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { AREA_CODE_RE, PHONE_RE } from '../../verification-code/contact';
import { NormalizeAreaCode, NormalizeEmail, NormalizePhone } from './transforms';

/** The phone-or-e-mail part shared by registration and password recovery (spec §5). */
export class ContactDto {
  @ApiProperty({ enum: ['phone', 'email'], description: 'Which route: by phone or by e-mail' })
  @IsIn(['phone', 'email'], { message: 'error.register_type_invalid' })
  type: 'phone' | 'email';

  @ApiPropertyOptional({ example: '13800138000', description: 'Phone route: national number' })
  @ValidateIf((o: ContactDto) => o.type === 'phone')
  @NormalizePhone()
  @IsNotEmpty({ message: 'error.phone_required' })
  @IsString({ message: 'error.phone_invalid' })
  @Matches(PHONE_RE, { message: 'error.phone_invalid' })
  phone?: string;

  @ApiPropertyOptional({ example: '86', description: 'Phone route: country calling code, digits (a leading + is accepted)' })
  @ValidateIf((o: ContactDto) => o.type === 'phone')
  @NormalizeAreaCode()
  @IsNotEmpty({ message: 'error.area_code_invalid' })
  @IsString({ message: 'error.area_code_invalid' })
  @Matches(AREA_CODE_RE, { message: 'error.area_code_invalid' })
  area_code?: string;

  @ApiPropertyOptional({ example: 'ana@example.com', description: 'E-mail route' })
  @ValidateIf((o: ContactDto) => o.type === 'email')
  @NormalizeEmail()
  @IsNotEmpty({ message: 'error.email_required' })
  @IsString({ message: 'error.email_invalid' })
  @MaxLength(200, { message: 'error.email_invalid' })
  @IsEmail({}, { message: 'error.email_invalid' })
  email?: string;
}

/** A verification code and a new password with its confirmation. */
export class CodeAndPasswordDto extends ContactDto {
  @ApiProperty({ example: '123456' })
  @IsNotEmpty({ message: 'error.code_required' })
  @IsString({ message: 'error.code_format' })
  @Matches(/^\d{6}$/, { message: 'error.code_format' })
  code: string;

  @ApiProperty({ minLength: 6, maxLength: 64 })
  @IsNotEmpty({ message: 'error.password_required' })
  @IsString({ message: 'error.password_required' })
  @MinLength(6, { message: 'error.password_min' })
  @MaxLength(64, { message: 'error.password_max' })
  password: string;

  @ApiProperty({ description: 'Must equal password' })
  @IsNotEmpty({ message: 'error.confirm_required' })
  @IsString({ message: 'error.confirm_required' })
  re_password: string;
}

