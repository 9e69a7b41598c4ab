import { get, post } from './client';
import type { Page } from './trading';

/** Referral promotion (`user/invite…`) and the help centre (`help/*`, `get/customer_url`): docs/api.md. */
export interface InviteInfo {
  invite_code: string;
  link: string;
  partner: boolean;
  auth_code: string | null;
  ratio: string;
  promoted_count: number;
  total_rebate: string;
  pending_rebate: string;
  rebate_currency: string;
  rebates: Array<{ currency: string; total: string; pending: string }>;
}
export interface MyInvite {
  inviter: { account: string; invite_code: string; partner: boolean } | null;
  sub_account: boolean;
  partner: boolean;
  auth_code: string | null;
  ratio: string;
  can_bind: boolean;
}
export interface Invitee {
  account: string;
  registered_at: string;
  verified: boolean;
  rebate: string;
}
export interface RebateRecord {
  id: string;
  kind: 'spot' | 'contract' | 'option';
  currency: string;
  fee: string;
  ratio: string;
  amount: string;
  status: 'pending' | 'paid';
  invitee: string;
  created_at: string;
  paid_at: string | null;
}
export interface Ranking {
  currency: string;
  items: Array<{ rank: number; account: string; rebate: string; invited: number }>;
}
export interface Poster {
  invite_code: string;
  link: string;
  title: string;
  subtitle: string;
}

/** Invitees and rebate records per page: a shorter page is the last. */
export const PROMOTION_PAGE_SIZE = 50;

export const promotionApi = {
  invite: () => get<InviteInfo>('user/invite'),
  myInvite: () => post<MyInvite>('user/myInvite'),
  invitees: (page = 1) => post<Page<Invitee>>('user/invite_list', { page, limit: PROMOTION_PAGE_SIZE }),
  records: (page = 1) => post<Page<RebateRecord>>('user/my_account_return', { page, limit: PROMOTION_PAGE_SIZE }),
  ranking: () => get<Ranking>('user/invite_ranking'),
  poster: () => get<Poster>('user/my_poster'),
  share: () => get<{ invite_code: string; link: string; text: string }>('user/my_share'),
  bind: (auth_code: string) => post<{ inviter_id: number }>('user/bind_auth_code', { auth_code }, { quiet: true }),
};

export interface ChatMessage {
  id: string;
  conversation_id: string;
  sender: 'user' | 'operator';
  text: string;
  image: string | null;
  image_url: string | null;
  created_at: string;
}
export interface Conversation {
  conversation_id: string;
  status: 'open' | 'closed';
  user_read_id: string;
  operator_read_id: string;
  user_unread: number;
  last_message_id: string;
  messages: ChatMessage[];
}
export const FEEDBACK_CATEGORIES = ['account', 'deposit', 'withdraw', 'trade', 'suggestion', 'other'] as const;
export type FeedbackCategory = (typeof FEEDBACK_CATEGORIES)[number];
export interface Feedback {
  id: string;
  category: FeedbackCategory;
  content: string;
  image_url: string | null;
  status: 'open' | 'replied';
  reply: string | null;
  replied_at: string | null;
  created_at: string;
}
/** A FAQ entry of the news CMS (`newsArticle/list` with the `faq` category). */
export interface FaqArticle {
  id: number;
  title: string;
  summary: string;
  category: string;
  category_name: string;
  published_at: string;
  /** Detail only: the body as sanitised HTML (rendered and cleaned by the CMS). */
  content?: string;
}

export const helpApi = {
  customerUrl: () => get<{ type: 'chat' | 'external'; url: string; route?: string }>('get/customer_url'),
  chat: (after = 0) => get<Conversation>('help/chat', { after }),
  send: (text: string, image: string | undefined, client_id: string) => post<ChatMessage>('help/chat/send', { text, image, client_id }),
  read: (message_id: string) => post<unknown>('help/chat/read', { message_id }, { quiet: true }),
  feedback: (body: { category: FeedbackCategory; content: string; image?: string; client_id: string }) =>
    post<Feedback>('help/feedback', body, { quiet: true }),
  myFeedback: () => get<Page<Feedback>>('help/feedback', { limit: 50 }),
  faq: () => get<Page<FaqArticle>>('newsArticle/list', { category: 'faq', limit: 50 }, { quiet: true }),
};
