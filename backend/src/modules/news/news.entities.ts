import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/** A section of the CMS: `announcement` (the notices tab and the home strip), `faq` (the help centre), `news`… */
@Entity('news_categories')
export class NewsCategory {
  @PrimaryGeneratedColumn()
  id: number;

  /** Stable machine name clients ask for (`announcement`, `faq`). */
  @Index('uq_news_categories_code', { unique: true })
  @Column({ type: 'varchar', length: 32 })
  code: string;

  /** Display name per language (`{en, zh, …}`); English is required, the others fall back to it. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  names: Record<string, string>;

  @Column({ type: 'int', default: 0 })
  sort: number;

  @Column(CREATED_AT)
  createdAt: Date;
}

/** An article's language-independent part; its texts live in NewsTranslation (one row per language). */
@Entity('news_articles')
@Index('ix_news_articles_list', ['categoryId', 'pinned', 'publishedAt'])
export class NewsArticle {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'category_id', type: 'int' })
  categoryId: number;

  /** An upload owned by the house (the operator's image through the upload service). */
  @Column({ name: 'cover_image_id', type: 'uuid', nullable: true })
  coverImageId: string | null;

  /** Visible from this time on (a future time schedules it). */
  @Column({ name: 'published_at', type: 'timestamptz' })
  publishedAt: Date;

  @Column({ type: 'boolean', default: false })
  pinned: boolean;

  @Column({ type: 'boolean', default: false })
  recommended: boolean;

  /** Removed by an operator: kept (the events refer to it) but never shown. */
  @Column({ type: 'boolean', default: false })
  deleted: boolean;

  @Column({ name: 'created_by', type: 'varchar', length: 40 })
  createdBy: string;

  @Column(CREATED_AT)
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

/** One language of an article: the Markdown as written and the sanitised HTML rendered from it. */
@Entity('news_translations')
export class NewsTranslation {
  @PrimaryColumn({ name: 'article_id', type: 'int' })
  articleId: number;

  @PrimaryColumn({ type: 'varchar', length: 4 })
  lang: string;

  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Column({ type: 'varchar', length: 500, default: '' })
  summary: string;

  @Column({ name: 'body_md', type: 'text' })
  bodyMd: string;

  @Column({ name: 'body_html', type: 'text' })
  bodyHtml: string;

  /** The uploads (the house's) the body's images show: `news/image` serves them while the article lives. */
  @Column({ name: 'image_ids', type: 'uuid', array: true, default: () => "'{}'" })
  imageIds: string[];
}

/** A home-page slide: an image, an optional link (an app route or an article), an order and an active window. */
@Entity('news_banners')
export class NewsBanner {
  @PrimaryGeneratedColumn()
  id: number;

  /** An upload owned by the house. */
  @Column({ name: 'image_id', type: 'uuid' })
  imageId: string;

  /** Alternative text per language (`{en, zh, …}`), falling back to English. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  titles: Record<string, string>;

  @Column({ name: 'link_type', type: 'varchar', length: 8, default: 'none' })
  linkType: 'none' | 'route' | 'article';

  /** A hash route (`/pages/promotion/index`) or an article id, per link_type. */
  @Column({ type: 'varchar', length: 200, default: '' })
  link: string;

  @Column({ type: 'int', default: 0 })
  sort: number;

  @Column({ name: 'starts_at', type: 'timestamptz', nullable: true })
  startsAt: Date | null;

  @Column({ name: 'ends_at', type: 'timestamptz', nullable: true })
  endsAt: Date | null;

  @Column({ type: 'boolean', default: false })
  deleted: boolean;

  @Column({ name: 'created_by', type: 'varchar', length: 40 })
  createdBy: string;

  @Column(CREATED_AT)
  createdAt: Date;
}
