import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { CodeAndPasswordDto } from './credentials.dto';
import { ToFlag } from './transforms';

export class RegisterDto extends CodeAndPasswordDto {
  @ApiPropertyOptional({ description: "Inviter's invite code (from ?code= or typed)" })
  @IsOptional()
  @IsString()
  @MaxLength(12, { message: 'error.invite_code_invalid' })
  invite_code?: string;

  @ApiPropertyOptional({ description: 'The user agreement checkbox: 1/true/on when ticked' })
  @IsOptional()
  @ToFlag()
  @IsBoolean()
  agreement?: boolean;

  @ApiPropertyOptional({ maxLength: 32 })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  nickname?: string;
}

/** Password recovery (user/forget): same contact, code and password rules as registration. */
export class ForgetDto extends CodeAndPasswordDto {}
