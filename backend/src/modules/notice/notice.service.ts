import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { updateReturning } from '../../infra/database/sql';
import type { Lang, MessageKey } from '../../infra/i18n/catalogue';
import { translate } from '../../infra/i18n/i18n';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { isNoticeKind, NOTICE_KINDS } from './notice-kinds';

interface MessageRow {
  id: string;
  title_key: string;
  params: Record<string, string>;
  ref: string;
  read_at: Date | null;
  created_at: Date;
}

/** A number as stored in a message's params ("12345.5", "-3"): shown with its integer part grouped. */
const PLAIN_NUMBER = /^(-?)(\d+)(\.\d+)?$/;

/**
 * The params as the text shows them: numbers grouped by thousands ("12345.5" → "12,345.5"), as the
 * app writes every amount; their digits are kept as stored (already truncated to the coin's
 * decimals). Anything else (a symbol, a date, an operator's reason even if it is a number) unchanged.
 */
export function shownParams(params: Record<string, string>): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    // An operator's reason is shown as typed, digits and all.
    const m = key !== 'reason' && typeof value === 'string' ? PLAIN_NUMBER.exec(value) : null;
    shown[key] = m ? `${m[1]}${m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${m[3] ?? ''}` : value;
  }
  return shown;
}

/** A message as the app shows it: its group title and its text in the reader's language. */
export function messageView(r: MessageRow, lang: Lang) {
  const kind = isNoticeKind(r.title_key) ? r.title_key : undefined;
  return {
    id: r.id,
    kind: r.title_key.replace(/^notice\./, ''),
    title: kind ? translate(lang, NOTICE_KINDS[kind]) : '',
    content: kind ? translate(lang, kind as MessageKey, shownParams(r.params)) : '',
    ref: r.ref,
    read: r.read_at !== null,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** The user's own messages: list, unread count, mark as read. Every query is scoped to the caller. */
@Injectable()
export class NoticeService {
  constructor(private readonly dataSource: DataSource) {}

  async unread(userId: number): Promise<number> {
    const [{ n }] = await this.dataSource.query('SELECT COUNT(*)::int AS n FROM user_messages WHERE user_id = $1 AND read_at IS NULL', [userId]);
    return n as number;
  }

  async list(userId: number, lang: Lang, q: { page: number; limit: number }) {
    const rows: MessageRow[] = await this.dataSource.query(
      'SELECT id::text, title_key, params, ref, read_at, created_at FROM user_messages WHERE user_id = $1 ORDER BY user_messages.id DESC LIMIT $2 OFFSET $3',
      [userId, q.limit, (q.page - 1) * q.limit],
    );
    const [{ total }] = await this.dataSource.query('SELECT COUNT(*)::int AS total FROM user_messages WHERE user_id = $1', [userId]);
    return { items: rows.map((r) => messageView(r, lang)), total: total as number, page: q.page, limit: q.limit, unread: await this.unread(userId) };
  }

  /** One message of the caller's (another user's id is 2910, as if it did not exist). Reading twice is fine. */
  async read(userId: number, lang: Lang, id: string) {
    const rows = await updateReturning<MessageRow>(
      this.dataSource.manager,
      `UPDATE user_messages SET read_at = COALESCE(read_at, now()) WHERE id = $1 AND user_id = $2 RETURNING id::text, title_key, params, ref, read_at, created_at`,
      [id, userId],
    );
    if (!rows.length) throw new BusinessError(ErrorCode.NOTICE_NOT_FOUND);
    return { ...messageView(rows[0], lang), unread: await this.unread(userId) };
  }

  /**
   * Marks the caller's messages read, up to `upTo` (the newest one the user was shown): a message
   * that came after it, its push perhaps lost, stays unread (regression: it was marked read unseen).
   */
  async readAll(userId: number, upTo?: string) {
    const rows = await updateReturning<{ id: string }>(
      this.dataSource.manager,
      'UPDATE user_messages SET read_at = now() WHERE user_id = $1 AND read_at IS NULL AND ($2::bigint IS NULL OR id <= $2::bigint) RETURNING id',
      [userId, upTo ?? null],
    );
    return { updated: rows.length, unread: await this.unread(userId) };
  }

  /** For the pusher: one message with its owner's unread count. */
  async one(userId: number, id: string): Promise<{ row: MessageRow; unread: number } | undefined> {
    const rows: MessageRow[] = await this.dataSource.query(
      'SELECT id::text, title_key, params, ref, read_at, created_at FROM user_messages WHERE id = $1 AND user_id = $2',
      [id, userId],
    );
    return rows.length ? { row: rows[0], unread: await this.unread(userId) } : undefined;
  }
}
