import { pick } from '../../infra/i18n/localized-texts';

/** The user of the house: news images are its uploads (like the NFT artwork). */
export const NEWS_OWNER = 0;
export const newsImageUrl = (id: string) => `/api/news/image/${id}`;

export interface ArticleRow {
  id: number;
  category_id: number;
  category: string;
  category_names: Record<string, string>;
  cover_image_id: string | null;
  published_at: Date;
  pinned: boolean;
  recommended: boolean;
  lang: string;
  title: string;
  summary: string;
  body_html?: string;
}

export function articleView(r: ArticleRow, lang: string) {
  return {
    id: r.id,
    category_id: r.category_id,
    category: r.category,
    category_name: pick(r.category_names, lang),
    title: r.title,
    summary: r.summary,
    cover: r.cover_image_id ? newsImageUrl(r.cover_image_id) : null,
    /** The language of the text shown (the request's, or en when it has no version in it). */
    lang: r.lang,
    published_at: new Date(r.published_at).toISOString(),
    pinned: r.pinned,
    recommended: r.recommended,
    ...(r.body_html !== undefined ? { content: r.body_html } : {}),
  };
}
