import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { orConcurrentRetry, updateReturning } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { RateLimitService } from '../../infra/http/rate-limit.service';
import { uploadUrl, UploadService } from '../upload/upload.service';
import { ChatPush } from './chat-push';

export interface MessageView {
  id: string;
  conversation_id: string;
  sender: 'user' | 'operator';
  text: string;
  image: string | null;
  image_url: string | null;
  created_at: string;
}

interface ConversationRow {
  id: string;
  user_id: number;
  status: string;
  last_message_id: string;
  user_read_id: string;
  operator_read_id: string;
  created_at: Date;
}

const HISTORY = 200;

/** What a message row is read as (view). */
const MESSAGE_COLUMNS = 'id::text, conversation_id::text, sender, text, image, created_at';

const view = (r: { id: string; conversation_id: string; sender: string; text: string; image: string | null; created_at: Date }): MessageView => ({
  id: String(r.id),
  conversation_id: String(r.conversation_id),
  sender: r.sender as MessageView['sender'],
  text: r.text,
  image: r.image,
  image_url: r.image ? uploadUrl(r.image) : null,
  created_at: new Date(r.created_at).toISOString(),
});

/**
 * Live chat (docs/help.md): one open conversation per user, messages persisted before they are
 * pushed to the conversation's room, read receipts as "last message id read" per side, unread
 * counts from them. Users reach only their own conversation; operators reach every one.
 */
@Injectable()
export class ChatService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uploads: UploadService,
    private readonly events: EventStoreService,
    private readonly push: ChatPush,
    private readonly rateLimit: RateLimitService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private async conversation(m: EntityManager, id: string, lock = false): Promise<ConversationRow | undefined> {
    const [c] = await m.query(
      `SELECT id::text, user_id, status, last_message_id::text, user_read_id::text, operator_read_id::text, created_at FROM chat_conversations WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return c;
  }

  /**
   * The user's open conversation (created on first use; `created` when this call made it), locked
   * FOR UPDATE, else undefined with create = false. The look-up takes no lock, so an operator's
   * close can commit between it and the lock: the locked row is checked again, and a closed one
   * sends us round for the next (a new conversation). Each round makes progress (a closed
   * conversation never reopens; ON CONFLICT finds nothing only when another open one committed,
   * which the next look-up sees), so this ends.
   */
  private async openFor(m: EntityManager, userId: number, create: boolean): Promise<{ c: ConversationRow; created: boolean } | undefined> {
    for (;;) {
      const [found] = await m.query(`SELECT id::text FROM chat_conversations WHERE user_id = $1 AND status = 'open'`, [userId]);
      if (found) {
        const c = await this.conversation(m, found.id, true);
        if (c?.status === 'open') return { c, created: false };
        continue;
      }
      if (!create) return undefined;
      const [made] = await m.query(
        `INSERT INTO chat_conversations (user_id) VALUES ($1) ON CONFLICT (user_id) WHERE status = 'open' DO NOTHING RETURNING id::text`,
        [userId],
      );
      if (made) return { c: (await this.conversation(m, made.id, true))!, created: true };
    }
  }

  /**
   * Oldest first. Without `after` (a first load) the newest HISTORY; with it, the first HISTORY
   * after it, so a catch-up that gets a full page asks again from its last id and misses nothing
   * (the newest HISTORY after it would skip what lies between). Ordered by the id's number, not the
   * text it is selected as (as text, "100" sorts before "99").
   */
  private async messages(conversationId: string, after = 0): Promise<MessageView[]> {
    const rows = await this.dataSource.query(
      after > 0
        ? `SELECT ${MESSAGE_COLUMNS} FROM chat_messages WHERE conversation_id = $1 AND id > $2 ORDER BY chat_messages.id LIMIT ${HISTORY}`
        : `SELECT ${MESSAGE_COLUMNS} FROM (SELECT * FROM chat_messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT ${HISTORY}) x ORDER BY x.id`,
      after > 0 ? [conversationId, after] : [conversationId],
    );
    return rows.map(view);
  }

  private async summary(c: ConversationRow) {
    const [{ user_unread, operator_unread }] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE sender = 'operator' AND id > $2)::int AS user_unread, count(*) FILTER (WHERE sender = 'user' AND id > $3)::int AS operator_unread
       FROM chat_messages WHERE conversation_id = $1`,
      [c.id, c.user_read_id, c.operator_read_id],
    );
    return {
      conversation_id: c.id,
      user_id: c.user_id,
      status: c.status,
      user_read_id: c.user_read_id,
      operator_read_id: c.operator_read_id,
      user_unread,
      operator_unread,
      last_message_id: c.last_message_id,
      created_at: new Date(c.created_at).toISOString(),
    };
  }

  /** help/chat: the user's conversation (open one, else the latest) and its messages after `after`. */
  async mine(userId: number, after = 0) {
    const [found]: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id::text FROM chat_conversations WHERE user_id = $1 ORDER BY (status = 'open') DESC, chat_conversations.id DESC LIMIT 1`,
      [userId],
    );
    // The one just opened, by its id: an operator may close it before the next statement (it was
    // looked up again as the open one, and a closed one answered 500).
    const id = found?.id ?? (await this.dataSource.transaction((m) => this.openFor(m, userId, true)))!.c.id;
    const row = (await this.conversation(this.dataSource.manager, id))!;
    return { ...(await this.summary(row)), messages: await this.messages(row.id, after) };
  }

  /** A user's message: into their open conversation (a new one if the last was closed). */
  /** One help-centre write of the user (a chat message, or feedback: one count for both), refused with 1002 past RATE_LIMIT_HELP_USER. */
  countWrite(userId: number): Promise<void> {
    return this.rateLimit.hit(`help:user:${userId}`, this.config.rateLimits.helpPerUser);
  }

  /**
   * A retry (the same `clientId`, its answer lost) is answered with the message it first sent
   * (pushed then), before the rate limit counts it, and sends nothing; so is one of two sent at
   * once with one id (the unique index takes the other).
   */
  async userSend(userId: number, text: string | undefined, image: string | undefined, clientId?: string): Promise<MessageView> {
    const body = (text ?? '').trim();
    if (!body && !image) throw new BusinessError(ErrorCode.HELP_MESSAGE_EMPTY);
    const prior = () => (clientId ? this.sentByClientId('user', userId, clientId) : Promise.resolve(undefined));
    const earlier = await prior();
    if (earlier) return earlier;
    await this.countWrite(userId);
    const send = () =>
      this.dataSource.transaction(async (m) => {
        if (image) await this.uploads.claim(m, userId, image);
        const { c, created } = (await this.openFor(m, userId, true))!;
        const msg = await this.insert(m, c, 'user', userId, body, image ?? null, clientId ?? null);
        // The sender has read everything up to their own message.
        await m.query('UPDATE chat_conversations SET user_read_id = $2 WHERE id = $1', [c.id, msg.id]);
        return { message: msg, fresh: created, retry: false };
      });
    const { message, fresh, retry } = await orConcurrentRetry(send, async () => {
      const first = await prior();
      return first && { message: first, fresh: false, retry: true };
    });
    if (retry) return message;
    this.push.toConversation(message.conversation_id, 'chat:message', message);
    this.push.toOperators('chat:message', message);
    if (fresh) {
      this.push.toOperators('chat:opened', { conversation_id: message.conversation_id, user_id: userId });
      // The user's other tabs and devices, still on the closed conversation, follow the new one.
      this.push.toUser(userId, 'chat:opened', { conversation_id: message.conversation_id });
    }
    return message;
  }

  /** The message `sender` sent with `clientId`, if any. */
  private async sentByClientId(sender: 'user' | 'operator', senderId: number, clientId: string): Promise<MessageView | undefined> {
    const [row] = await this.dataSource.query(`SELECT ${MESSAGE_COLUMNS} FROM chat_messages WHERE sender = $1 AND sender_id = $2 AND client_id = $3`, [
      sender,
      senderId,
      clientId,
    ]);
    return row ? view(row) : undefined;
  }

  private async insert(
    m: EntityManager,
    c: ConversationRow,
    sender: 'user' | 'operator',
    senderId: number,
    text: string,
    image: string | null,
    clientId: string | null = null,
  ): Promise<MessageView> {
    const [row] = await m.query(
      `INSERT INTO chat_messages (conversation_id, sender, sender_id, text, image, client_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${MESSAGE_COLUMNS}`,
      [c.id, sender, senderId, text, image, clientId],
    );
    await m.query('UPDATE chat_conversations SET last_message_id = $2 WHERE id = $1', [c.id, row.id]);
    return view(row);
  }

  /** Read receipt: `side` has read up to `messageId` (never moves back). */
  async markRead(conversationId: string, side: 'user' | 'operator', messageId: number) {
    const column = side === 'user' ? 'user_read_id' : 'operator_read_id';
    const [r] = await updateReturning<{ read_id: string }>(
      this.dataSource.manager,
      `UPDATE chat_conversations SET ${column} = GREATEST(${column}, LEAST($2::bigint, last_message_id)) WHERE id = $1 RETURNING ${column}::text AS read_id`,
      [conversationId, messageId],
    );
    const receipt = { conversation_id: conversationId, side, read_id: r?.read_id ?? '0' };
    this.push.toConversation(conversationId, 'chat:read', receipt);
    return receipt;
  }

  async userRead(userId: number, messageId: number) {
    const [c] = await this.dataSource.query(
      `SELECT id::text FROM chat_conversations WHERE user_id = $1 ORDER BY (status = 'open') DESC, chat_conversations.id DESC LIMIT 1`,
      [userId],
    );
    if (!c) throw new BusinessError(ErrorCode.HELP_CONVERSATION_NOT_FOUND);
    return this.markRead(c.id, 'user', messageId);
  }

  /** Whether a subject may join a conversation's room / read it. */
  async mayAccess(subject: { type: 'user' | 'admin'; id: number }, conversationId: string): Promise<boolean> {
    if (!/^\d{1,18}$/.test(conversationId)) return false;
    const c = await this.conversation(this.dataSource.manager, conversationId);
    if (!c) return false;
    return subject.type === 'admin' || c.user_id === subject.id;
  }

  /** Messages after `after` for a subject allowed to see them (the socket's catch-up). */
  async history(subject: { type: 'user' | 'admin'; id: number }, conversationId: string, after = 0): Promise<MessageView[]> {
    if (!(await this.mayAccess(subject, conversationId))) throw new BusinessError(ErrorCode.HELP_CONVERSATION_NOT_FOUND);
    return this.messages(conversationId, after);
  }

  // --- operators -------------------------------------------------------------------------------

  /**
   * Operators' list, newest message first. `before` (a page's `next_before`: its last conversation's
   * last message id and id) pages by position, not by offset: a conversation closed or answered
   * between two pages moves no other past the cursor, so none is skipped (one that moves to the
   * top is pushed to the operators as its message comes).
   */
  async list(status: 'open' | 'closed', page: number, limit: number, before?: string) {
    const [lastMessage, id] = before ? before.split('.') : [];
    const rows: Array<ConversationRow & { account: string }> = await this.dataSource.query(
      `SELECT c.id::text, c.user_id, c.status, c.last_message_id::text, c.user_read_id::text, c.operator_read_id::text, c.created_at, u.account
       FROM chat_conversations c JOIN users u ON u.id = c.user_id WHERE c.status = $1 ${before ? 'AND (c.last_message_id, c.id) < ($4::bigint, $5::bigint)' : ''}
       ORDER BY c.last_message_id DESC, c.id DESC LIMIT $2 OFFSET $3`,
      before ? [status, limit, 0, lastMessage, id] : [status, limit, (page - 1) * limit],
    );
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM chat_conversations WHERE status = $1', [status]);
    const items = [];
    for (const r of rows) {
      const [last] = await this.messages(r.id, Number(r.last_message_id) - 1);
      items.push({ ...(await this.summary(r)), account: r.account, last_message: last ?? null });
    }
    const last = rows.length === limit ? rows[rows.length - 1] : undefined;
    return { items, total, page: before ? 1 : page, limit, next_before: last ? `${last.last_message_id}.${last.id}` : null };
  }

  async read(conversationId: string, after = 0) {
    const c = await this.conversation(this.dataSource.manager, conversationId);
    if (!c) throw new BusinessError(ErrorCode.HELP_CONVERSATION_NOT_FOUND);
    return { ...(await this.summary(c)), messages: await this.messages(c.id, after) };
  }

  /** As `userSend`: a retry with the same `clientId` (per operator) is answered with the reply it first sent, and sends nothing. */
  async reply(adminId: number, conversationId: string, text: string, clientId?: string): Promise<MessageView> {
    const prior = () => (clientId ? this.sentByClientId('operator', adminId, clientId) : Promise.resolve(undefined));
    const earlier = await prior();
    if (earlier) return earlier;
    const send = () =>
      this.dataSource.transaction(async (m) => {
        const c = await this.conversation(m, conversationId, true);
        if (!c) throw new BusinessError(ErrorCode.HELP_CONVERSATION_NOT_FOUND);
        if (c.status !== 'open') throw new BusinessError(ErrorCode.HELP_CONVERSATION_CLOSED);
        const msg = await this.insert(m, c, 'operator', adminId, text, null, clientId ?? null);
        await m.query('UPDATE chat_conversations SET operator_read_id = $2 WHERE id = $1', [c.id, msg.id]);
        return { message: msg, retry: false };
      });
    const { message, retry } = await orConcurrentRetry(send, async () => {
      const first = await prior();
      return first && { message: first, retry: true };
    });
    if (retry) return message;
    this.push.toConversation(conversationId, 'chat:message', message);
    this.push.toOperators('chat:message', message);
    return message;
  }

  async close(adminId: number, conversationId: string) {
    await this.dataSource.transaction(async (m) => {
      const c = await this.conversation(m, conversationId, true);
      if (!c) throw new BusinessError(ErrorCode.HELP_CONVERSATION_NOT_FOUND);
      if (c.status !== 'open') throw new BusinessError(ErrorCode.HELP_CONVERSATION_CLOSED);
      await m.query(`UPDATE chat_conversations SET status = 'closed', closed_by = $2, closed_at = now() WHERE id = $1`, [c.id, adminId]);
      await this.events.append(m, { streamId: `chat:${c.id}`, metadata: { actor: `admin:${adminId}` } }, [
        { type: 'ChatConversationClosed', payload: { conversationId: c.id, userId: c.user_id } },
      ]);
    });
    const closed = { conversation_id: conversationId, status: 'closed' };
    this.push.toConversation(conversationId, 'chat:closed', closed);
    this.push.toOperators('chat:closed', closed);
    return closed;
  }
}
