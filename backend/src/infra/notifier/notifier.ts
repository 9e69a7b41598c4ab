import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface Notification {
  channel: 'sms' | 'email';
  recipient: string;
  purpose: string;
  body: string;
}

/** Where user-facing messages go. Swap the provider for a real SMS/e-mail gateway. */
export abstract class Notifier {
  abstract send(n: Notification, manager?: EntityManager): Promise<void>;
}

/**
 * Default notifier: the outbox table, which operators read at GET /api/admin/outbox (ADMIN_OUTBOX_READ=on) and a
 * delivery worker can drain. Outside production a line says a message was queued (never its
 * body: it holds verification codes, which must not reach the logs); read it at admin/outbox.
 */
@Injectable()
export class OutboxNotifier extends Notifier {
  private readonly logger = new Logger('Outbox');
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async send(n: Notification, manager: EntityManager = this.dataSource.manager): Promise<void> {
    const [row] = (await manager.query('INSERT INTO outbox (channel, recipient, purpose, body) VALUES ($1, $2, $3, $4) RETURNING id', [n.channel, n.recipient, n.purpose, n.body])) as Array<{ id: string }>;
    if (process.env.NODE_ENV !== 'production') this.logger.log(`${n.channel} to ${n.recipient} (${n.purpose}) queued as outbox #${row.id}: read it at GET /api/admin/outbox (with ADMIN_OUTBOX_READ=on) or in the outbox table`);
  }
}
