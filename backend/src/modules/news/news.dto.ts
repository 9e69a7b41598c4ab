import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsNotEmpty, IsString, IsUUID, Length, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { LANGS } from '../../infra/i18n/catalogue';
import { PageQueryDto } from '../../infra/http/page.dto';
import { ReasonDto } from '../../infra/http/reason.dto';
import { Optional, Trim, ZONED_TIME_RE } from '../../infra/http/validation';
import { jsonField } from '../../infra/i18n/localized-texts';

export const CATEGORY_CODE_RE = /^[a-z0-9_-]{2,32}$/;
/** An app route a banner opens (`/pages/promotion/index`) or an article id. */
const ROUTE_RE = /^\/[A-Za-z0-9/_\-.?=&]{0,199}$/;

/** "1"/"true" → true, "0"/"false" → false (forms send strings); anything else stays and fails. */
const flag = ({ value }: { value: unknown }) =>
  value === '1' || value === 'true' || value === true ? true : value === '0' || value === 'false' || value === false ? false : value;

export class NewsListDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Category code (announcement, news, faq…); without it, every category' })
  @Optional()
  @Matches(CATEGORY_CODE_RE, { message: 'error.news_category_invalid' })
  category?: string;
}

export class NewsDetailDto {
  @ApiProperty()
  @Type(() => Number)
  @IsInt({ message: 'error.news_article_not_found' })
  @Min(1, { message: 'error.news_article_not_found' })
  id: number;
}

export class CategoryCreateDto extends ReasonDto {
  @ApiProperty({ example: 'guides' })
  @Matches(CATEGORY_CODE_RE, { message: 'error.news_code_invalid' })
  code: string;

  @ApiProperty({ description: 'JSON object language → name, with en', example: '{"en":"Guides","zh":"指南"}' })
  @Transform(jsonField)
  @IsNotEmpty({ message: 'error.news_names_invalid' })
  names: unknown;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.news_sort_invalid' })
  @Min(0, { message: 'error.news_sort_invalid' })
  @Max(9999, { message: 'error.news_sort_invalid' })
  sort?: number;
}

export class CategoryUpdateDto extends ReasonDto {
  @ApiPropertyOptional({ description: 'JSON object language → name, with en' })
  @Optional()
  @Transform(jsonField)
  names?: unknown;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.news_sort_invalid' })
  @Min(0, { message: 'error.news_sort_invalid' })
  @Max(9999, { message: 'error.news_sort_invalid' })
  sort?: number;
}

export class TranslationDto extends ReasonDto {
  @ApiProperty({ enum: LANGS })
  @IsIn(LANGS, { message: 'error.news_lang_invalid' })
  lang: string;

  @ApiProperty()
  @Trim()
  @IsString({ message: 'error.news_title_invalid' })
  @Length(1, 200, { message: 'error.news_title_invalid' })
  title: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'error.news_summary_invalid' })
  @MaxLength(500, { message: 'error.news_summary_invalid' })
  summary?: string;

  @ApiProperty({ description: 'Markdown; raw HTML is not rendered' })
  @IsString({ message: 'error.news_body_invalid' })
  @Length(1, 20000, { message: 'error.news_body_invalid' })
  body: string;
}

class ArticleMeta extends ReasonDto {
  @ApiPropertyOptional({ description: 'An image uploaded at admin/news/images; empty removes the cover' })
  @Optional()
  @ValidateIf((_, v) => v !== '')
  @IsUUID('all', { message: 'upload.not_found' })
  cover_image_id?: string;

  @ApiPropertyOptional({ description: 'ISO time; default now (a future time schedules the article)' })
  @Optional()
  @Matches(ZONED_TIME_RE, { message: 'error.news_time_invalid' })
  @IsISO8601({ strict: true }, { message: 'error.news_time_invalid' })
  published_at?: string;

  @ApiPropertyOptional()
  @Optional()
  @Transform(flag)
  @IsIn([true, false], { message: 'error.news_flag_invalid' })
  pinned?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @Transform(flag)
  @IsIn([true, false], { message: 'error.news_flag_invalid' })
  recommended?: boolean;
}

export class ArticleCreateDto extends ArticleMeta {
  @ApiProperty()
  @Type(() => Number)
  @IsInt({ message: 'error.news_category_invalid' })
  @Min(1, { message: 'error.news_category_invalid' })
  category_id: number;

  @ApiProperty({ description: 'The first version must be English (en)' })
  @IsIn(LANGS, { message: 'error.news_lang_invalid' })
  lang: string;

  @ApiProperty()
  @Trim()
  @IsString({ message: 'error.news_title_invalid' })
  @Length(1, 200, { message: 'error.news_title_invalid' })
  title: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: 'error.news_summary_invalid' })
  @MaxLength(500, { message: 'error.news_summary_invalid' })
  summary?: string;

  @ApiProperty({ description: 'Markdown; raw HTML is not rendered' })
  @IsString({ message: 'error.news_body_invalid' })
  @Length(1, 20000, { message: 'error.news_body_invalid' })
  body: string;
}

export class ArticleUpdateDto extends ArticleMeta {
  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.news_category_invalid' })
  @Min(1, { message: 'error.news_category_invalid' })
  category_id?: number;
}

export class BannerUpdateDto extends ReasonDto {
  @ApiPropertyOptional({ description: 'An image uploaded at admin/news/images' })
  @Optional()
  @IsUUID('all', { message: 'upload.not_found' })
  image_id?: string;

  @ApiPropertyOptional({ description: 'JSON object language → title (alt text), English as the fallback' })
  @Optional()
  @Transform(jsonField)
  titles?: unknown;

  @ApiPropertyOptional({ enum: ['none', 'route', 'article'] })
  @Optional()
  @IsIn(['none', 'route', 'article'], { message: 'error.news_link_invalid' })
  link_type?: 'none' | 'route' | 'article';

  @ApiPropertyOptional({ description: 'route: /pages/…; article: its id' })
  @Optional()
  @IsString({ message: 'error.news_link_invalid' })
  @MaxLength(200, { message: 'error.news_link_invalid' })
  link?: string;

  @ApiPropertyOptional()
  @Optional()
  @Type(() => Number)
  @IsInt({ message: 'error.news_sort_invalid' })
  @Min(0, { message: 'error.news_sort_invalid' })
  @Max(9999, { message: 'error.news_sort_invalid' })
  sort?: number;

  @ApiPropertyOptional({ description: 'ISO time; empty: no start' })
  @Optional()
  @ValidateIf((_, v) => v !== '')
  @Matches(ZONED_TIME_RE, { message: 'error.news_time_invalid' })
  @IsISO8601({ strict: true }, { message: 'error.news_time_invalid' })
  starts_at?: string;

  @ApiPropertyOptional({ description: 'ISO time; empty: no end' })
  @Optional()
  @ValidateIf((_, v) => v !== '')
  @Matches(ZONED_TIME_RE, { message: 'error.news_time_invalid' })
  @IsISO8601({ strict: true }, { message: 'error.news_time_invalid' })
  ends_at?: string;
}

/** Same fields; image_id is required (checked by the service). */
export class BannerCreateDto extends BannerUpdateDto {}

export { ROUTE_RE };
