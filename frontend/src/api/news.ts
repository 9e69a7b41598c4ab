import { get, post } from './client';
import type { Page } from './trading';

/** News CMS (`news/*`, `newsArticle/*`, `newsRecommend/list`) and the user's messages (`notice/*`): docs/api.md. */
export interface NewsCategory {
  id: number;
  code: string;
  name: string;
  count: number;
}
export interface NewsArticle {
  id: number;
  category_id: number;
  category: string;
  category_name: string;
  title: string;
  summary: string;
  cover: string | null;
  lang: string;
  published_at: string;
  pinned: boolean;
  recommended: boolean;
  /** Sanitised HTML (detail only). */
  content?: string;
}
export interface NewsBanner {
  id: number;
  image: string;
  title: string;
  link_type: 'none' | 'route' | 'article';
  link: string;
  sort: number;
}
export interface NoticeMessage {
  id: string;
  kind: string;
  title: string;
  content: string;
  ref: string;
  read: boolean;
  created_at: string;
}

export const newsApi = {
  list: (category?: string, page = 1, limit = 20) => get<Page<NewsArticle> & { categories: NewsCategory[] }>('news/list', { category, page, limit }),
  articles: (category: string, page = 1, limit = 20) => get<Page<NewsArticle>>('newsArticle/list', { category, page, limit }),
  recommended: (page = 1, limit = 20) => get<Page<NewsArticle>>('newsRecommend/list', { page, limit }),
  banners: () => get<NewsBanner[]>('news/banner'),
  article: (id: number) => get<NewsArticle>('newsArticle/detailed', { id }),
};

export const noticeApi = {
  list: (page = 1, limit = 20) => get<Page<NoticeMessage> & { unread: number }>('notice/list', { page, limit }),
  unread: () => get<{ unread: number }>('notice/unread', undefined, { quiet: true }),
  read: (id: string) => post<NoticeMessage & { unread: number }>('notice/read', { id }),
  /** Up to the newest message shown (`upTo`): one that came after it stays unread. */
  readAll: (upTo?: string) => post<{ updated: number; unread: number }>('notice/read_all', upTo ? { up_to: upTo } : undefined),
};
