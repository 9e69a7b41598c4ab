import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsNotEmpty, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { AREA_CODE_RE, PHONE_RE } from '../../verification-code/contact';
import { NormalizeAreaCode, NormalizeEmail, NormalizePhone } from './transforms';
import { Optional } from '../../../infra/http/validation';

export class LoginDto {
  @ApiProperty({ description: 'Phone number or e-mail' })
  @IsNotEmpty({ message: 'error.account_required' })
  @IsString({ message: 'error.account_required' })
  @MaxLength(200, { message: 'error.login_failed' })
  account: string;

  @ApiPropertyOptional({ description: 'Country code, when logging in by phone and the number exists in several countries' })
  @Optional()
  @NormalizeAreaCode()
  @IsString()
  @Matches(AREA_CODE_RE, { message: 'error.area_code_invalid' })
  area_code?: string;

  @ApiProperty()
  @IsNotEmpty({ message: 'error.password_required' })
  @IsString({ message: 'error.password_required' })
  @MaxLength(64, { message: 'error.login_failed' })
  password: string;
}

export class CheckPhoneDto {
  @ApiProperty()
  @NormalizePhone()
  @IsNotEmpty({ message: 'error.phone_required' })
  @IsString({ message: 'error.phone_invalid' })
  @Matches(PHONE_RE, { message: 'error.phone_invalid' })
  phone: string;

  @ApiPropertyOptional()
  @Optional()
  @NormalizeAreaCode()
  @IsString()
  @Matches(AREA_CODE_RE, { message: 'error.area_code_invalid' })
  area_code?: string;
}

export class CheckEmailDto {
  @ApiProperty()
  @NormalizeEmail()
  @IsNotEmpty({ message: 'error.email_required' })
  @IsString({ message: 'error.email_invalid' })
  @IsEmail({}, { message: 'error.email_invalid' })
  @MaxLength(200, { message: 'error.email_invalid' })
  email: string;
}

export class FundPasswordDto {
  @ApiProperty({ description: 'Exactly 6 digits' })
  @IsNotEmpty({ message: 'error.fund_password_format' })
  @IsString({ message: 'error.fund_password_format' })
  @Matches(/^\d{6}$/, { message: 'error.fund_password_format' })
  password: string;

  @ApiProperty({ description: 'Must equal password' })
  @IsNotEmpty({ message: 'error.confirm_required' })
  @IsString({ message: 'error.confirm_required' })
  re_password: string;

  @ApiProperty({ example: '123456', description: 'Code sent with purpose fund_password' })
  @IsNotEmpty({ message: 'error.code_required' })
  @IsString({ message: 'error.code_format' })
  @Matches(/^\d{6}$/, { message: 'error.code_format' })
  code: string;

  @ApiPropertyOptional({ enum: ['sms', 'email'], description: 'Where the code was sent (default: the phone, else the e-mail)' })
  @Optional()
  @IsIn(['sms', 'email'])
  channel?: 'sms' | 'email';
}

export class UpdatePasswordDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'error.old_password_required' })
  @IsString({ message: 'error.old_password_required' })
  @MaxLength(64, { message: 'error.old_password_wrong' })
  old_password: string;

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
