import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client, Notification } from 'pg';
import type { Server } from 'socket.io';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { isLang } from '../../infra/i18n/catalogue';
import { userRoom } from '../realtime/topics';
import { messageView, NoticeService } from './notice.service';
import { NOTICE_CHANNEL } from './user-message.service';

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * Pushes each new message to its owner's room (`notice`). The services that leave messages do
 * `pg_notify` in their own transaction, which Postgres delivers only after the commit, so a push
 * never announces a message that was rolled back, whichever module wrote it. Every API process
 * listens and emits to its own sockets only (`server.local`), so a multi-replica deployment
 * pushes once per socket. A push is a hint: the list and the unread count are the truth.
 *
 * The listening connection is kept up: whenever connecting, LISTEN or the connection fails, it is
 * tried again after a delay that doubles from 1 s up to 30 s (back to 1 s once listening), until
 * shutdown. Messages left while no connection listens are not pushed (Postgres keeps no
 * notifications for absent listeners); the app still shows them from the list and the unread count.
 */
@Injectable()
export class NoticePushService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('NoticePush');
  private server?: Server;
  private client?: Client;
  private closing = false;
  private retryMs = 0;
  private retryTimer?: NodeJS.Timeout;

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
    clearTimeout(this.retryTimer);
    await this.client?.end().catch(() => undefined);
  }

  /** One connection that LISTENs; any failure of it (once per connection) schedules the next. */
  private async listen(): Promise<void> {
    if (this.closing) return;
    // A connect that hangs, or a connection gone half-open (no error, no end), would leave the
    // listener dead: a connect times out, and TCP keep-alive ends a dead peer's connection.
    const client = new Client({
      connectionString: this.config.databaseUrl,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let lost = false;
    const fail = (err: unknown) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      this.retry(err);
    };
    client.on('notification', (n) => void this.deliver(n));
    client.on('error', fail);
    client.on('end', () => fail(new Error('notice listener connection ended')));
    // Known before it connects, so a shutdown meanwhile ends it.
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTICE_CHANNEL}`);
    } catch (err) {
      fail(err);
      return;
    }
    if (lost) return;
    if (this.retryMs > 0) this.logger.log('notice listener listening again');
    this.retryMs = 0;
  }

  private retry(err: unknown): void {
    if (this.closing) return;
    this.retryMs = this.retryMs ? Math.min(this.retryMs * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
    this.logger.warn({ err, retryInMs: this.retryMs }, 'notice listener is not connected; retrying');
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.listen(), this.retryMs);
    this.retryTimer.unref();
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
