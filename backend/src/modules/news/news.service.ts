import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Lang } from '../../infra/i18n/catalogue';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { UploadService, UUID_RE } from '../upload/upload.service';
import { NewsCategory } from './news.entities';
import { pick } from '../../infra/i18n/localized-texts';
import { ArticleRow, articleView, NEWS_OWNER, newsImageUrl } from './news-views';

/** The translation in the request's language, else English (every article has one: the service requires it). */
const ARTICLE_SELECT = `SELECT a.id, a.category_id, c.code AS category, c.names AS category_names, a.cover_image_id, a.published_at, a.pinned, a.recommended,
       t.lang, t.title, t.summary
  FROM news_articles a
  JOIN news_categories c ON c.id = a.category_id
  JOIN LATERAL (SELECT * FROM news_translations t WHERE t.article_id = a.id AND t.lang IN ($1, 'en') ORDER BY (t.lang = $1) DESC LIMIT 1) t ON true`;
const VISIBLE = 'NOT a.deleted AND a.published_at <= now()';
const ORDER = 'ORDER BY a.pinned DESC, a.published_at DESC, a.id DESC';

/** What the app reads: categories, article lists (paged), recommended, banners, an article. */
@Injectable()
export class NewsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uploads: UploadService,
  ) {}

  async categories(lang: Lang) {
    const rows: Array<{ id: number; code: string; names: Record<string, string>; sort: number; count: number }> = await this.dataSource.query(
      `SELECT c.id, c.code, c.names, c.sort, (SELECT COUNT(*)::int FROM news_articles a WHERE a.category_id = c.id AND ${VISIBLE}) AS count
         FROM news_categories c ORDER BY c.sort, c.id`,
    );
    return rows.map((c) => ({ id: c.id, code: c.code, name: pick(c.names, lang), count: c.count }));
  }

  async category(code: string): Promise<NewsCategory> {
    const c = await this.dataSource.getRepository(NewsCategory).findOne({ where: { code } });
    if (!c) throw new BusinessError(ErrorCode.NEWS_CATEGORY_NOT_FOUND);
    return c;
  }

  /** Visible articles, pinned first then newest; of one category when asked, and only recommended ones when asked. */
  async articles(lang: Lang, q: { category?: string; page: number; limit: number; recommended?: boolean }) {
    const categoryId = q.category !== undefined ? (await this.category(q.category)).id : undefined;
    // `first` is the number of the first filter parameter ($1 is the language in the list query).
    const where = (first: number) =>
      [VISIBLE, categoryId !== undefined ? `a.category_id = $${first}` : '', q.recommended ? 'a.recommended' : ''].filter(Boolean).join(' AND ');
    const filter = categoryId !== undefined ? [categoryId] : [];
    const [{ total }]: Array<{ total: number }> = await this.dataSource.query(`SELECT COUNT(*)::int AS total FROM news_articles a WHERE ${where(1)}`, filter);
    const rows: ArticleRow[] = await this.dataSource.query(`${ARTICLE_SELECT} WHERE ${where(2)} ${ORDER} LIMIT ${q.limit} OFFSET ${(q.page - 1) * q.limit}`, [
      lang,
      ...filter,
    ]);
    return { items: rows.map((r) => articleView(r, lang)), total, page: q.page, limit: q.limit };
  }

  async article(lang: Lang, id: number) {
    const rows: ArticleRow[] = await this.dataSource.query(
      `SELECT x.*, t.body_html FROM (${ARTICLE_SELECT} WHERE ${VISIBLE} AND a.id = $2) x JOIN news_translations t ON t.article_id = x.id AND t.lang = x.lang`,
      [lang, id],
    );
    if (!rows.length) throw new BusinessError(ErrorCode.NEWS_ARTICLE_NOT_FOUND);
    return articleView(rows[0], lang);
  }

  /**
   * Banners inside their active window, in order. One linking to an article that is deleted or not
   * published yet links nowhere (`none`) until the article is shown: its link would open "Article not found".
   */
  async banners(lang: Lang) {
    const rows: Array<{ id: number; image_id: string; titles: Record<string, string>; link_type: string; link: string; sort: number }> =
      await this.dataSource.query(
        `SELECT b.id, b.image_id, b.titles, b.sort,
                CASE WHEN b.link_type = 'article' AND a.id IS NULL THEN 'none' ELSE b.link_type END AS link_type,
                CASE WHEN b.link_type = 'article' AND a.id IS NULL THEN '' ELSE b.link END AS link
         FROM news_banners b
         LEFT JOIN news_articles a ON b.link_type = 'article' AND a.id::text = b.link AND ${VISIBLE}
        WHERE NOT b.deleted AND (b.starts_at IS NULL OR b.starts_at <= now()) AND (b.ends_at IS NULL OR b.ends_at > now())
        ORDER BY b.sort, b.id`,
      );
    return rows.map((b) => ({ id: b.id, image: newsImageUrl(b.image_id), title: pick(b.titles, lang), link_type: b.link_type, link: b.link, sort: b.sort }));
  }

  /** An image of a live article or banner, for anyone; any other id is 2904. */
  async image(id: string): Promise<{ mime: string; bytes: Buffer }> {
    const ok = UUID_RE.test(id)
      ? await this.dataSource.query(
          `SELECT 1 FROM news_articles WHERE cover_image_id = $1 AND NOT deleted UNION ALL SELECT 1 FROM news_banners WHERE image_id = $1 AND NOT deleted
           UNION ALL SELECT 1 FROM news_translations t JOIN news_articles a ON a.id = t.article_id WHERE $1 = ANY(t.image_ids) AND NOT a.deleted LIMIT 1`,
          [id],
        )
      : [];
    if (!ok.length) throw new BusinessError(ErrorCode.NEWS_IMAGE_NOT_FOUND);
    return this.uploads.read({ subjectType: 'user', subjectId: NEWS_OWNER, token: '' }, id);
  }
}
