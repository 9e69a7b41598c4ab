import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, MaxLength } from 'class-validator';
import { CodeAndPasswordDto } from './credentials.dto';
import { ToFlag } from './transforms';
import { Optional } from '../../../infra/http/validation';

export class RegisterDto extends CodeAndPasswordDto {
  @ApiPropertyOptional({ description: "Inviter's invite code (from ?code= or typed)" })
  @Optional()
  @IsString()
  @MaxLength(12, { message: 'error.invite_code_invalid' })
  invite_code?: string;

  @ApiPropertyOptional({ description: 'The user agreement checkbox: 1/true/on when ticked' })
  @Optional()
  @ToFlag()
  @IsBoolean()
  agreement?: boolean;

  @ApiPropertyOptional({ maxLength: 32 })
  @Optional()
  @IsString()
  @MaxLength(32)
  nickname?: string;
}

/** Password recovery (user/forget): same contact, code and password rules as registration. */
export class ForgetDto extends CodeAndPasswordDto {}
