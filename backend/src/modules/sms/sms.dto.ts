import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsNotEmpty, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { NormalizeAreaCode, NormalizeEmail, NormalizePhone } from '../user/dto/transforms';
import { AREA_CODE_RE, PHONE_RE } from '../verification-code/contact';
import { CODE_PURPOSES, CodePurpose, OWN_CONTACT_PURPOSES } from '../verification-code/code-purpose';
import { Optional } from '../../infra/http/validation';

const needsTarget = (o: { purpose?: CodePurpose }) => !OWN_CONTACT_PURPOSES.includes(o.purpose ?? 'register');

export class SendSmsDto {
  @ApiPropertyOptional({
    enum: CODE_PURPOSES,
    default: 'register',
    description: 'fund_password and address go to your own phone (login needed; phone not sent)',
  })
  @Optional()
  @IsIn(CODE_PURPOSES, { message: 'error.code_purpose_invalid' })
  purpose?: CodePurpose;

  @ApiPropertyOptional({ example: '13800138000' })
  @ValidateIf(needsTarget)
  @NormalizePhone()
  @IsNotEmpty({ message: 'error.phone_required' })
  @IsString({ message: 'error.phone_invalid' })
  @Matches(PHONE_RE, { message: 'error.phone_invalid' })
  phone?: string;

  @ApiProperty({ example: '86' })
  @ValidateIf(needsTarget)
  @NormalizeAreaCode()
  @IsNotEmpty({ message: 'error.area_code_invalid' })
  @IsString({ message: 'error.area_code_invalid' })
  @Matches(AREA_CODE_RE, { message: 'error.area_code_invalid' })
  area_code?: string;
}

export class SendMailDto {
  @ApiPropertyOptional({
    enum: CODE_PURPOSES,
    default: 'register',
    description: 'fund_password and address go to your own e-mail (login needed; email not sent)',
  })
  @Optional()
  @IsIn(CODE_PURPOSES, { message: 'error.code_purpose_invalid' })
  purpose?: CodePurpose;

  @ApiPropertyOptional({ example: 'ana@example.com' })
  @ValidateIf(needsTarget)
  @NormalizeEmail()
  @IsNotEmpty({ message: 'error.email_required' })
  @IsString({ message: 'error.email_invalid' })
  @IsEmail({}, { message: 'error.email_invalid' })
  @MaxLength(200, { message: 'error.email_invalid' })
  email?: string;
}
