import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { NormalizeEmail } from '../user/dto/transforms';
import { Optional } from '../../infra/http/validation';

export class AdminLoginDto {
  @ApiProperty()
  @NormalizeEmail()
  @IsNotEmpty({ message: 'error.email_required' })
  @IsString({ message: 'error.email_invalid' })
  @IsEmail({}, { message: 'error.email_invalid' })
  email: string;

  @ApiProperty()
  @IsNotEmpty({ message: 'error.password_required' })
  @IsString({ message: 'error.password_required' })
  @MaxLength(128, { message: 'error.login_failed' })
  password: string;
}

export class UserSearchDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Part of the account, phone, e-mail, nickname or invite code; or a user id' })
  @Optional()
  @IsString()
  @MaxLength(100)
  search?: string;
}

export class OutboxQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Exact recipient: "+86 13800138000" or an e-mail' })
  @Optional()
  @IsString()
  @MaxLength(200)
  recipient?: string;
}
