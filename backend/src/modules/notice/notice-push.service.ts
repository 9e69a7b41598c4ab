import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client, Notification } from 'pg';
import type { Server } from 'socket.io';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { isLang } from '../../infra/i18n/catalogue';
import { userRoom } from '../realtime/topics';
import { messageView, NoticeService } from './notice.service';
import { NOTICE_CHANNEL } from './user-message.service';

/**
 * Pushes each new message to its owner's room (`notice`). The services that leave messages do
 * `pg_notify` in their own transaction, which Postgres delivers only after the commit, so a push
 * never announces a message that was rolled back, whichever module wrote it. Every API process
 * listens and emits to its own sockets only (`server.local`), so a multi-replica deployment
 * pushes once per socket. A push is a hint: the list and the unread count are the truth.
 */
@Injectable()
export class NoticePushService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NoticePush');
  private server?: Server;
  private client?: Client;
  private closing = false;

  constructor(
    private readonly notices: NoticeService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  attach(server: Server): void {
    this.server = server;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl });
    client.on('notification', (n) => void this.deliver(n));
    client.on('error', (err) => {
      this.logger.warn({ err }, 'notice listener lost its connection; reconnecting');
      client.end().catch(() => undefined);
      if (!this.closing) setTimeout(() => void this.listen().catch((e: unknown) => this.logger.warn({ err: e }, 'notice listener')), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${NOTICE_CHANNEL}`);
    this.client = client;
  }

  private async deliver(n: Notification): Promise<void> {
    const [user, id] = (n.payload ?? '').split(':');
    const userId = Number(user);
    if (!this.server || !Number.isSafeInteger(userId) || !id) return;
    try {
      const sockets = await this.server.local.in(userRoom(userId)).fetchSockets();
      if (!sockets.length) return;
      const found = await this.notices.one(userId, id);
      if (!found) return;
      for (const s of sockets) {
        const lang = s.handshake.auth?.lang;
        s.emit('notice', { ...messageView(found.row, isLang(lang) ? lang : 'en'), unread: found.unread });
      }
    } catch (err) {
      this.logger.warn({ err, payload: n.payload }, 'notice push failed');
    }
  }
}
