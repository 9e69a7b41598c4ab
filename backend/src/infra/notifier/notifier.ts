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
 * Default notifier: the outbox table, which operators read at GET /api/admin/outbox and a
 * delivery worker can drain. Outside production the message is also logged, for development.
 */
@Injectable()
export class OutboxNotifier extends Notifier {
  private readonly logger = new Logger('Outbox');
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async send(n: Notification, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query('INSERT INTO outbox (channel, recipient, purpose, body) VALUES ($1, $2, $3, $4)', [n.channel, n.recipient, n.purpose, n.body]);
    if (process.env.NODE_ENV !== 'production') this.logger.log(`${n.channel} to ${n.recipient} (${n.purpose}): ${n.body}`);
  }
}
