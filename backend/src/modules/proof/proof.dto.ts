import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { Optional } from '../../infra/http/validation';

export class ProofMineDto {
  @ApiPropertyOptional({ enum: ['1', '0'], description: '1: the same proof as a file to save (Content-Disposition: attachment), without the envelope' })
  @Optional()
  @IsIn(['1', '0'], { message: 'error.validation' })
  download?: string;
}

export class ProofBuildDto {
  @ApiPropertyOptional({ description: 'Why (optional; kept with the ProofRootPublished event)' })
  @Optional()
  @IsString({ message: 'error.validation' })
  @MaxLength(500, { message: 'error.validation' })
  reason?: string;
}
