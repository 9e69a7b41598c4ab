import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { orConcurrentRetry, updateReturning } from '../../infra/database/sql';
import { EventStoreService } from '../../infra/event-store/event-store.service';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { UserMessageService } from '../notice/user-message.service';
import { uploadUrl, UploadService } from '../upload/upload.service';
import { ChatService } from './chat.service';

/** The in-app chat's route; get/customer_url answers it unless an operator set an external URL. */
export const CHAT_ROUTE = '/pages/help/center/chat';
const CUSTOMER_URL_KEY = 'customer_url';

interface FeedbackRow {
  id: string;
  user_id: number;
  category: string;
  content: string;
  image: string | null;
  status: string;
  reply: string | null;
  replied_at: Date | null;
  created_at: Date;
}

/** What a feedback row is read as (feedbackView). */
const FEEDBACK_COLUMNS = 'id::text, user_id, category, content, image, status, reply, replied_at, created_at';

const feedbackView = (r: FeedbackRow) => ({
  id: String(r.id),
  category: r.category,
  content: r.content,
  image: r.image,
  image_url: r.image ? uploadUrl(r.image) : null,
  status: r.status,
  reply: r.reply,
  replied_at: r.replied_at ? new Date(r.replied_at).toISOString() : null,
  created_at: new Date(r.created_at).toISOString(),
});

/** Feedback (with the operator's reply) and the online-service address. */
@Injectable()
export class HelpService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uploads: UploadService,
    private readonly events: EventStoreService,
    private readonly messages: UserMessageService,
    private readonly chat: ChatService,
  ) {}

  async customerUrl() {
    const [row] = await this.dataSource.query('SELECT value FROM settings WHERE key = $1', [CUSTOMER_URL_KEY]);
    const url = typeof row?.value === 'string' ? row.value : '';
    return url ? { type: 'external', url } : { type: 'chat', url: `/#${CHAT_ROUTE}`, route: CHAT_ROUTE };
  }

  async setCustomerUrl(adminId: number, url: string, reason: string) {
    await this.dataSource.transaction(async (m) => {
      await m.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [CUSTOMER_URL_KEY, JSON.stringify(url)]);
      await this.events.append(m, { streamId: 'settings:customer_url', metadata: { actor: `admin:${adminId}`, reason } }, [{ type: 'CustomerUrlChanged', payload: { url } }]);
    });
    return this.customerUrl();
  }

  /**
   * A retry (the same `client_id`, its answer lost) is answered with the feedback it first sent,
   * before the rate limit counts it, and writes nothing: the id is the request's, whatever the
   * retry's fields. Two sent at once with one id: the unique index takes one, the other answers it.
   */
  async submitFeedback(userId: number, dto: { category: string; content: string; image?: string; client_id?: string }) {
    const clientId = dto.client_id;
    const prior = () => (clientId ? this.feedbackByClientId(userId, clientId) : Promise.resolve(undefined));
    const earlier = await prior();
    if (earlier) return feedbackView(earlier);
    // Counted with the chat's messages: each is a row kept for good.
    await this.chat.countWrite(userId);
    const create = () =>
      this.dataSource.transaction(async (m) => {
        if (dto.image) await this.uploads.claim(m, userId, dto.image);
        const [r] = await m.query(
          `INSERT INTO help_feedback (user_id, category, content, image, client_id) VALUES ($1, $2, $3, $4, $5)
           RETURNING ${FEEDBACK_COLUMNS}`,
          [userId, dto.category, dto.content, dto.image ?? null, clientId ?? null],
        );
        return r as FeedbackRow;
      });
    return feedbackView(await orConcurrentRetry(create, prior));
  }

  private async feedbackByClientId(userId: number, clientId: string): Promise<FeedbackRow | undefined> {
    const [r] = await this.dataSource.query(`SELECT ${FEEDBACK_COLUMNS} FROM help_feedback WHERE user_id = $1 AND client_id = $2`, [userId, clientId]);
    return r as FeedbackRow | undefined;
  }

  async myFeedback(userId: number, page: number, limit: number) {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(
        `SELECT ${FEEDBACK_COLUMNS} FROM help_feedback WHERE user_id = $1 ORDER BY help_feedback.id DESC LIMIT $2 OFFSET $3`,
        [userId, limit, (page - 1) * limit],
      ),
      this.dataSource.query('SELECT count(*)::int AS total FROM help_feedback WHERE user_id = $1', [userId]),
    ]);
    return { items: rows.map(feedbackView), total, page, limit };
  }

  async feedbackList(status: string | undefined, page: number, limit: number) {
    const where = status ? 'WHERE f.status = $3' : '';
    const params: unknown[] = [limit, (page - 1) * limit, ...(status ? [status] : [])];
    const rows = await this.dataSource.query(
      `SELECT f.id::text, f.user_id, f.category, f.content, f.image, f.status, f.reply, f.replied_at, f.created_at, u.account
       FROM help_feedback f JOIN users u ON u.id = f.user_id ${where} ORDER BY f.id DESC LIMIT $1 OFFSET $2`,
      params,
    );
    const [{ total }] = await this.dataSource.query(`SELECT count(*)::int AS total FROM help_feedback f ${status ? 'WHERE f.status = $1' : ''}`, status ? [status] : []);
    return { items: rows.map((r: FeedbackRow & { account: string }) => ({ ...feedbackView(r), user_id: r.user_id, account: r.account })), total, page, limit };
  }

  /** `id` checked by the route (BigIdPipe: 1000 for a malformed one). */
  async reply(adminId: number, id: string, text: string) {
    const row = await this.dataSource.transaction(async (m) => {
      const [f] = await m.query('SELECT status, user_id FROM help_feedback WHERE id = $1 FOR UPDATE', [id]);
      if (!f) throw new BusinessError(ErrorCode.HELP_FEEDBACK_NOT_FOUND);
      if (f.status !== 'open') throw new BusinessError(ErrorCode.HELP_FEEDBACK_REPLIED);
      const [r] = await updateReturning<FeedbackRow>(
        m,
        `UPDATE help_feedback SET status = 'replied', reply = $2, replied_by = $3, replied_at = now() WHERE id = $1
         RETURNING ${FEEDBACK_COLUMNS}`,
        [id, text, adminId],
      );
      await this.messages.leave(m, f.user_id, 'notice.feedback_replied', {}, `feedback:${id}`);
      await this.events.append(m, { streamId: `feedback:${id}`, metadata: { actor: `admin:${adminId}` } }, [{ type: 'FeedbackReplied', payload: { feedbackId: id, userId: f.user_id } }]);
      return r as FeedbackRow;
    });
    return feedbackView(row);
  }
}
