import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { MessageKey } from '../../infra/i18n/catalogue';

/** Leaves users messages about decisions on their records (the notices screen reads them). */
@Injectable()
export class UserMessageService {
  /** Inside the caller's transaction, so the message exists exactly when the decision does. */
  async leave(manager: EntityManager, userId: number, titleKey: MessageKey, params: Record<string, string>, ref: string): Promise<void> {
    await manager.query('INSERT INTO user_messages (user_id, title_key, params, ref) VALUES ($1, $2, $3, $4)', [userId, titleKey, JSON.stringify(params), ref]);
  }
}
