import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { NoticeKind } from './notice-kinds';

/** The Postgres channel a new message is announced on; NOTIFY is delivered only when the transaction commits. */
export const NOTICE_CHANNEL = 'user_message';

export interface NewMessage {
  userId: number;
  kind: NoticeKind;
  params: Record<string, string>;
  /** What the message is about, e.g. `deposit:17`. */
  ref: string;
}

/** Leaves users messages about decisions on their records (the notices screen reads them). */
@Injectable()
export class UserMessageService {
  /** Inside the caller's transaction, so the message exists exactly when the decision does. */
  async leave(manager: EntityManager, userId: number, kind: NoticeKind, params: Record<string, string>, ref: string): Promise<void> {
    await this.leaveMany(manager, [{ userId, kind, params, ref }]);
  }

  /** Several at once (a settlement batch); each is announced to the pusher after the commit. */
  async leaveMany(manager: EntityManager, messages: NewMessage[]): Promise<void> {
    if (!messages.length) return;
    const rows: Array<{ id: string; user_id: number }> = await manager.query(
      `INSERT INTO user_messages (user_id, title_key, params, ref)
       SELECT * FROM unnest($1::int[], $2::varchar[], $3::jsonb[], $4::varchar[]) RETURNING id::text, user_id`,
      [messages.map((m) => m.userId), messages.map((m) => m.kind), messages.map((m) => JSON.stringify(m.params)), messages.map((m) => m.ref)],
    );
    await manager.query(`SELECT pg_notify($1, x) FROM unnest($2::text[]) x`, [NOTICE_CHANNEL, rows.map((r) => `${r.user_id}:${r.id}`)]);
  }
}
