import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

export class ProofMineDto {
  @ApiPropertyOptional({ enum: ['1', '0'], description: '1: the same proof as a file to save (Content-Disposition: attachment), without the envelope' })
  @IsOptional()
  @IsIn(['1', '0'], { message: 'error.validation' })
  download?: string;
}

export class ProofBuildDto {
  @ApiPropertyOptional({ description: 'Why (optional; kept with the ProofRootPublished event)' })
  @IsOptional()
  @IsString({ message: 'error.validation' })
  @MaxLength(500, { message: 'error.validation' })
  reason?: string;
}
