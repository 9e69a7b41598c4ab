import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsString, Matches } from 'class-validator';
import { PageQueryDto } from '../../infra/http/page.dto';
import { Optional, RequiredReason } from '../../infra/http/validation';

/** Ratios: a decimal from 0 to 0.9 with at most 8 decimals (a rebate never exceeds the fee). */
export const RATIO_RE = /^0(\.[0-8]\d{0,7}|\.90{0,7})?$/;

export class PromotionPageDto extends PageQueryDto {}

export class BindAuthCodeDto {
  @ApiProperty({ description: 'A partner’s authorization code (issued by an operator)', example: 'P7K2M9QX' })
  @IsNotEmpty({ message: 'error.promotion_auth_code_required' })
  @IsString({ message: 'error.promotion_auth_code_required' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toUpperCase() : value))
  @Matches(/^[A-Z0-9]{4,12}$/, { message: 'error.promotion_auth_code_invalid' })
  auth_code: string;
}

export class PromotionReasonDto {
  @ApiProperty()
  @RequiredReason(255, 'error.reason_required')
  reason: string;
}

export class PartnerDto extends PromotionReasonDto {
  @ApiProperty({ enum: ['1', '0'], description: '1 makes the user a partner (exclusive promoter), 0 ends it' })
  @Transform(({ value }) => (typeof value === 'number' || typeof value === 'boolean' ? String(Number(value)) : value))
  @IsIn(['1', '0'], { message: 'error.promotion_partner_invalid' })
  partner: string;
}

export class PromotionSettingsDto extends PromotionReasonDto {
  @ApiPropertyOptional({ example: '0.2', description: 'Share of an invitee’s fee credited to a normal inviter' })
  @Optional()
  @IsString({ message: 'error.promotion_ratio_invalid' })
  @Matches(RATIO_RE, { message: 'error.promotion_ratio_invalid' })
  ratio?: string;

  @ApiPropertyOptional({ example: '0.4', description: 'Share credited to a partner' })
  @Optional()
  @IsString({ message: 'error.promotion_ratio_invalid' })
  @Matches(RATIO_RE, { message: 'error.promotion_ratio_invalid' })
  partner_ratio?: string;
}
