import { Body, Controller, Get, Param, ParseIntPipe, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminAuth, Auth, AuthContext } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { RequestLang } from '../../infra/http/request-context';
import type { Lang } from '../../infra/i18n/catalogue';
import type { IncomingFile } from '../upload/upload.service';
import { NewsAdminService } from './news-admin.service';
import {
  ArticleCreateDto,
  ArticleUpdateDto,
  BannerCreateDto,
  BannerUpdateDto,
  CategoryCreateDto,
  CategoryUpdateDto,
  NewsDetailDto,
  NewsListDto,
  TranslationDto,
} from './news.dto';
import { NewsService } from './news.service';
import { ReasonDto } from '../../infra/http/reason.dto';

/** The app's news: public, in the request's language with English as the fallback. */
@ApiTags('news')
@Controller()
export class NewsController {
  constructor(private readonly news: NewsService) {}

  /** The categories, and the articles of one (`category`) or of all, paged. */
  @Get('news/list')
  async list(@RequestLang() lang: Lang, @Query() q: NewsListDto) {
    return { categories: await this.news.categories(lang), ...(await this.news.articles(lang, q)) };
  }

  @Get('newsRecommend/list')
  recommended(@RequestLang() lang: Lang, @Query() q: NewsListDto) {
    return this.news.articles(lang, { ...q, recommended: true });
  }

  @Get('news/banner')
  banners(@RequestLang() lang: Lang) {
    return this.news.banners(lang);
  }

  @Get('newsArticle/list')
  articles(@RequestLang() lang: Lang, @Query() q: NewsListDto) {
    return this.news.articles(lang, q);
  }

  @Get('newsArticle/detailed')
  article(@RequestLang() lang: Lang, @Query() q: NewsDetailDto) {
    return this.news.article(lang, q.id);
  }

  /** A cover or banner image (bytes, not the envelope; errors are envelopes). */
  @Get('news/image/:id')
  async image(@Param('id') id: string, @Res() res: Response): Promise<void> {
    const image = await this.news.image(id);
    res.status(200);
    res.setHeader('Content-Type', image.mime);
    res.setHeader('Cache-Control', 'public, max-age=86400, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(image.bytes);
  }
}

/** Operators: the CMS. Every change is an event with the operator and the reason. */
@ApiTags('admin')
@Controller('admin/news')
@AdminAuth()
export class NewsAdminController {
  constructor(private readonly admin: NewsAdminService) {}

  private actor(auth: AuthContext) {
    return `admin:${auth.subjectId}`;
  }

  @Post('images')
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] } })
  async image(@Req() req: Request) {
    const files = (Array.isArray(req.files) ? req.files : []) as IncomingFile[];
    return new Reply(await this.admin.uploadImage(files.find((f) => f.fieldname === 'file')), 'upload.success');
  }

  @Post('categories')
  async createCategory(@Auth() auth: AuthContext, @Body() dto: CategoryCreateDto) {
    return new Reply(await this.admin.createCategory(this.actor(auth), dto), 'msg.news_saved');
  }

  @Post('categories/:id')
  async updateCategory(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: CategoryUpdateDto) {
    return new Reply(await this.admin.updateCategory(this.actor(auth), id, dto), 'msg.news_saved');
  }

  @Get('articles')
  articles(@Query() q: NewsListDto) {
    return this.admin.articles(q);
  }

  @Post('articles')
  async createArticle(@Auth() auth: AuthContext, @Body() dto: ArticleCreateDto) {
    return new Reply(await this.admin.createArticle(this.actor(auth), dto), 'msg.news_saved');
  }

  @Post('articles/:id')
  async updateArticle(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: ArticleUpdateDto) {
    return new Reply(await this.admin.updateArticle(this.actor(auth), id, dto), 'msg.news_saved');
  }

  @Post('articles/:id/translations')
  async translate(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: TranslationDto) {
    return new Reply(await this.admin.setTranslation(this.actor(auth), id, dto), 'msg.news_saved');
  }

  @Post('articles/:id/delete')
  async deleteArticle(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: ReasonDto) {
    return new Reply(await this.admin.deleteArticle(this.actor(auth), id, dto.reason), 'msg.news_saved');
  }

  @Get('banners')
  banners() {
    return this.admin.banners();
  }

  @Post('banners')
  async createBanner(@Auth() auth: AuthContext, @Body() dto: BannerCreateDto) {
    return new Reply(await this.admin.createBanner(this.actor(auth), dto), 'msg.news_saved');
  }

  @Post('banners/:id')
  async updateBanner(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: BannerUpdateDto) {
    return new Reply(await this.admin.updateBanner(this.actor(auth), id, dto), 'msg.news_saved');
  }

  @Post('banners/:id/delete')
  async deleteBanner(@Auth() auth: AuthContext, @Param('id', ParseIntPipe) id: number, @Body() dto: ReasonDto) {
    return new Reply(await this.admin.deleteBanner(this.actor(auth), id, dto.reason), 'msg.news_saved');
  }
}
