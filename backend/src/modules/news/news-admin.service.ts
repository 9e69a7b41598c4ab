import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { textsOrFail } from '../../infra/i18n/localized-texts';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { IncomingFile, UploadService } from '../upload/upload.service';
import { articleBody } from './markdown';
import {
  ArticleCreateDto,
  ArticleUpdateDto,
  BannerCreateDto,
  BannerUpdateDto,
  CategoryCreateDto,
  CategoryUpdateDto,
  ROUTE_RE,
  TranslationDto,
} from './news.dto';
import { NewsArticle, NewsBanner, NewsCategory, NewsTranslation } from './news.entities';
import { NEWS_OWNER, newsImageUrl } from './news-views';

const time = (v: string | undefined) => (v ? new Date(v) : null);

/**
 * The operator's CMS. Every change is one transaction: the rows and an event (stream
 * `news-category:<id>`, `news-article:<id>`, `news-banner:<id>`) with the operator and reason.
 */
@Injectable()
export class NewsAdminService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStoreService,
    private readonly uploads: UploadService,
  ) {}

  /** An image for covers and banners, owned by the house so the public image route can serve it. */
  uploadImage(file: IncomingFile | undefined) {
    return this.uploads.uploadImage(NEWS_OWNER, file);
  }

  private event(m: EntityManager, stream: string, actor: string, reason: string, type: string, payload: Record<string, unknown>) {
    return this.events.append(m, { streamId: stream, metadata: { actor, reason } }, [{ type, payload }]);
  }

  async createCategory(actor: string, dto: CategoryCreateDto) {
    const names = textsOrFail(dto.names, 40, 'names');
    return this.dataSource.transaction(async (m) => {
      const res = await m
        .createQueryBuilder()
        .insert()
        .into(NewsCategory)
        .values({ code: dto.code, names, sort: dto.sort ?? 0 })
        .orIgnore()
        .returning('id')
        .execute();
      const row = res.raw[0] as { id: number } | undefined;
      if (!row) throw new BusinessError(ErrorCode.NEWS_CATEGORY_EXISTS);
      await this.event(m, `news-category:${row.id}`, actor, dto.reason, 'NewsCategoryCreated', { code: dto.code, names, sort: dto.sort ?? 0 });
      return m.getRepository(NewsCategory).findOneByOrFail({ id: row.id });
    });
  }

  async updateCategory(actor: string, id: number, dto: CategoryUpdateDto) {
    const names = dto.names !== undefined ? textsOrFail(dto.names, 40, 'names') : undefined;
    return this.dataSource.transaction(async (m) => {
      const c = await m.getRepository(NewsCategory).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!c) throw new BusinessError(ErrorCode.NEWS_CATEGORY_NOT_FOUND);
      if (names) c.names = names;
      if (dto.sort !== undefined) c.sort = dto.sort;
      await m.getRepository(NewsCategory).save(c);
      await this.event(m, `news-category:${id}`, actor, dto.reason, 'NewsCategoryUpdated', { names: c.names, sort: c.sort });
      return c;
    });
  }

  async articles(q: { category?: string; page: number; limit: number }) {
    const qb = this.dataSource
      .getRepository(NewsArticle)
      .createQueryBuilder('a')
      .innerJoin(NewsCategory, 'c', 'c.id = a.category_id')
      .orderBy('a.id', 'DESC')
      .skip((q.page - 1) * q.limit)
      .take(q.limit);
    if (q.category) qb.where('c.code = :code', { code: q.category });
    const [items, total] = await qb.getManyAndCount();
    const texts = items.length ? await this.dataSource.getRepository(NewsTranslation).find({ where: items.map((a) => ({ articleId: a.id })) }) : [];
    return {
      items: items.map((a) => ({
        ...this.articleAdminView(a),
        translations: texts.filter((t) => t.articleId === a.id).map((t) => ({ lang: t.lang, title: t.title, summary: t.summary, body: t.bodyMd })),
      })),
      total,
      page: q.page,
      limit: q.limit,
    };
  }

  private articleAdminView(a: NewsArticle) {
    return {
      id: a.id,
      category_id: a.categoryId,
      cover: a.coverImageId ? newsImageUrl(a.coverImageId) : null,
      cover_image_id: a.coverImageId,
      published_at: new Date(a.publishedAt).toISOString(),
      pinned: a.pinned,
      recommended: a.recommended,
      deleted: a.deleted,
    };
  }

  private async checkCategory(m: EntityManager, id: number) {
    if (!(await m.getRepository(NewsCategory).exists({ where: { id } }))) throw new BusinessError(ErrorCode.NEWS_CATEGORY_NOT_FOUND);
  }

  /** Creates an article with its first version, which must be English (the fallback of every other language). */
  async createArticle(actor: string, dto: ArticleCreateDto) {
    if (dto.lang !== 'en') throw new BusinessError(ErrorCode.NEWS_ENGLISH_REQUIRED);
    const { html, images } = articleBody(dto.body);
    return this.dataSource.transaction(async (m) => {
      await this.checkCategory(m, dto.category_id);
      if (dto.cover_image_id) await this.uploads.claim(m, NEWS_OWNER, dto.cover_image_id);
      for (const image of images) await this.uploads.claim(m, NEWS_OWNER, image);
      const a = await m.getRepository(NewsArticle).save(
        m.getRepository(NewsArticle).create({
          categoryId: dto.category_id,
          coverImageId: dto.cover_image_id || null,
          publishedAt: time(dto.published_at) ?? new Date(),
          pinned: dto.pinned ?? false,
          recommended: dto.recommended ?? false,
          createdBy: actor,
        }),
      );
      await m
        .getRepository(NewsTranslation)
        .insert({
          articleId: a.id,
          lang: 'en',
          title: dto.title.trim(),
          summary: (dto.summary ?? '').trim(),
          bodyMd: dto.body,
          bodyHtml: html,
          imageIds: images,
        });
      await this.event(m, `news-article:${a.id}`, actor, dto.reason, 'NewsArticleCreated', {
        ...this.articleAdminView(a),
        lang: 'en',
        title: dto.title.trim(),
      });
      return this.articleAdminView(a);
    });
  }

  async updateArticle(actor: string, id: number, dto: ArticleUpdateDto) {
    return this.dataSource.transaction(async (m) => {
      const a = await this.lockArticle(m, id);
      if (dto.category_id !== undefined) {
        await this.checkCategory(m, dto.category_id);
        a.categoryId = dto.category_id;
      }
      if (dto.cover_image_id !== undefined) {
        if (dto.cover_image_id) await this.uploads.claim(m, NEWS_OWNER, dto.cover_image_id);
        a.coverImageId = dto.cover_image_id || null;
      }
      if (dto.published_at !== undefined) a.publishedAt = new Date(dto.published_at);
      if (dto.pinned !== undefined) a.pinned = dto.pinned;
      if (dto.recommended !== undefined) a.recommended = dto.recommended;
      a.updatedAt = new Date();
      await m.getRepository(NewsArticle).save(a);
      await this.event(m, `news-article:${id}`, actor, dto.reason, 'NewsArticleUpdated', this.articleAdminView(a));
      return this.articleAdminView(a);
    });
  }

  /** Adds or replaces one language of an article. */
  async setTranslation(actor: string, id: number, dto: TranslationDto) {
    const { html, images } = articleBody(dto.body);
    return this.dataSource.transaction(async (m) => {
      const a = await this.lockArticle(m, id);
      for (const image of images) await this.uploads.claim(m, NEWS_OWNER, image);
      await m
        .getRepository(NewsTranslation)
        .upsert(
          { articleId: id, lang: dto.lang, title: dto.title.trim(), summary: (dto.summary ?? '').trim(), bodyMd: dto.body, bodyHtml: html, imageIds: images },
          ['articleId', 'lang'],
        );
      a.updatedAt = new Date();
      await m.getRepository(NewsArticle).save(a);
      await this.event(m, `news-article:${id}`, actor, dto.reason, 'NewsTranslationSet', { lang: dto.lang, title: dto.title.trim() });
      return { id, lang: dto.lang, title: dto.title.trim(), summary: (dto.summary ?? '').trim(), content: html };
    });
  }

  /** Hides an article for good (kept for its events; banners linking to it stop showing the link target). */
  async deleteArticle(actor: string, id: number, reason: string) {
    return this.dataSource.transaction(async (m) => {
      const a = await this.lockArticle(m, id);
      a.deleted = true;
      await m.getRepository(NewsArticle).save(a);
      await this.event(m, `news-article:${id}`, actor, reason, 'NewsArticleDeleted', {});
      return this.articleAdminView(a);
    });
  }

  private async lockArticle(m: EntityManager, id: number) {
    const a = await m.getRepository(NewsArticle).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!a || a.deleted) throw new BusinessError(ErrorCode.NEWS_ARTICLE_NOT_FOUND);
    return a;
  }

  async banners() {
    const rows = await this.dataSource.getRepository(NewsBanner).find({ order: { sort: 'ASC', id: 'ASC' } });
    return rows.map((b) => this.bannerView(b));
  }

  private bannerView(b: NewsBanner) {
    return {
      id: b.id,
      image: newsImageUrl(b.imageId),
      image_id: b.imageId,
      titles: b.titles,
      link_type: b.linkType,
      link: b.link,
      sort: b.sort,
      starts_at: b.startsAt ? new Date(b.startsAt).toISOString() : null,
      ends_at: b.endsAt ? new Date(b.endsAt).toISOString() : null,
      deleted: b.deleted,
    };
  }

  /** The link must fit its type: a route starting with /, an existing article's id, or nothing. */
  private async checkBanner(m: EntityManager, b: NewsBanner) {
    if (b.linkType === 'none') b.link = '';
    else if (b.linkType === 'route' && !ROUTE_RE.test(b.link)) throw new BusinessError(ErrorCode.VALIDATION, 'error.news_link_invalid', { field: 'link' });
    else if (b.linkType === 'article') {
      const id = /^\d{1,9}$/.test(b.link) ? Number(b.link) : 0;
      if (!(await m.getRepository(NewsArticle).exists({ where: { id, deleted: false } }))) throw new BusinessError(ErrorCode.NEWS_ARTICLE_NOT_FOUND);
    }
    if (b.startsAt && b.endsAt && b.endsAt <= b.startsAt) throw new BusinessError(ErrorCode.VALIDATION, 'error.news_window_invalid', { field: 'ends_at' });
    await this.uploads.claim(m, NEWS_OWNER, b.imageId);
  }

  private apply(b: NewsBanner, dto: BannerUpdateDto) {
    if (dto.image_id !== undefined) b.imageId = dto.image_id;
    if (dto.titles !== undefined) b.titles = textsOrFail(dto.titles, 120, 'titles', false);
    if (dto.link_type !== undefined) b.linkType = dto.link_type;
    if (dto.link !== undefined) b.link = dto.link.trim();
    if (dto.sort !== undefined) b.sort = dto.sort;
    if (dto.starts_at !== undefined) b.startsAt = time(dto.starts_at);
    if (dto.ends_at !== undefined) b.endsAt = time(dto.ends_at);
  }

  async createBanner(actor: string, dto: BannerCreateDto) {
    if (!dto.image_id) throw new BusinessError(ErrorCode.VALIDATION, 'upload.file_required', { field: 'image_id' });
    return this.dataSource.transaction(async (m) => {
      const b = m.getRepository(NewsBanner).create({ titles: {}, linkType: 'none', link: '', sort: 0, startsAt: null, endsAt: null, createdBy: actor });
      this.apply(b, dto);
      await this.checkBanner(m, b);
      const saved = await m.getRepository(NewsBanner).save(b);
      await this.event(m, `news-banner:${saved.id}`, actor, dto.reason, 'NewsBannerCreated', this.bannerView(saved));
      return this.bannerView(saved);
    });
  }

  async updateBanner(actor: string, id: number, dto: BannerUpdateDto) {
    return this.dataSource.transaction(async (m) => {
      const b = await m.getRepository(NewsBanner).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!b || b.deleted) throw new BusinessError(ErrorCode.NEWS_BANNER_NOT_FOUND);
      this.apply(b, dto);
      await this.checkBanner(m, b);
      await m.getRepository(NewsBanner).save(b);
      await this.event(m, `news-banner:${id}`, actor, dto.reason, 'NewsBannerUpdated', this.bannerView(b));
      return this.bannerView(b);
    });
  }

  async deleteBanner(actor: string, id: number, reason: string) {
    return this.dataSource.transaction(async (m) => {
      const b = await m.getRepository(NewsBanner).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!b || b.deleted) throw new BusinessError(ErrorCode.NEWS_BANNER_NOT_FOUND);
      b.deleted = true;
      await m.getRepository(NewsBanner).save(b);
      await this.event(m, `news-banner:${id}`, actor, reason, 'NewsBannerDeleted', {});
      return this.bannerView(b);
    });
  }
}
