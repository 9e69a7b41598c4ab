import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from './validation';

/** The deepest page a list answers (1,000,000 lines at 100 a page): a page past it is refused, never a database error. */
export const PAGE_MAX = 10_000;

/** A `page` query field: a whole number from 1 to PAGE_MAX, optional (give the property `= 1`). */
export const PageNumber = () =>
  applyDecorators(
    ApiPropertyOptional({ default: 1, maximum: PAGE_MAX }),
    Optional(),
    Type(() => Number),
    IsInt({ message: 'error.page_number' }),
    Min(1, { message: 'error.page_number' }),
    Max(PAGE_MAX, { message: 'error.page_number' }),
  );

/** `page` from 1 to PAGE_MAX, `limit` up to 100 (default 20). */
export class PageQueryDto {
  @PageNumber()
  page: number = 1;

  @ApiPropertyOptional({ default: 20, maximum: 100 })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.page_limit' })
  @Min(1, { message: 'error.page_limit' })
  @Max(100, { message: 'error.page_limit' })
  limit: number = 20;
}

/**
 * The most a long list's `total` counts (wallet/log, coin/list): a longer history answers this
 * number and its pages go on; counting a market maker's millions of lines on every page would cost
 * more than the page.
 */
export const TOTAL_MAX = 10_000;

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}
