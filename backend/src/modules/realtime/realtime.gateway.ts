import { Logger } from '@nestjs/common';
import { ConnectedSocket, MessageBody, OnGatewayConnection, OnGatewayDisconnect, OnGatewayInit, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { OrderAck, SnapshotData, Topic } from '@kestrel/contracts';
import type { Server, Socket } from 'socket.io';
import { TokenService, tokenFromHeader } from '../../infra/auth/token.service';
import { OrderChannel } from '../coin-trade/order-channel';
import { MarketFeedService, RECOVERY_MS } from './market-feed.service';
import { parseTopic, userRoom } from './topics';

const MAX_TOPICS = 40;

/**
 * The push channel at /socket.io (DESIGN §8). Market topics are rooms a client subscribes to
 * (the answer carries each topic's snapshot); a valid handshake token also joins the user's
 * private room. Visitors get market data only. With a user token the socket may also place and
 * cancel spot orders (`order`, answered by coin-trade's OrderChannel with the /api envelope).
 */
@WebSocketGateway({ path: '/socket.io', cors: { origin: true }, connectionStateRecovery: { maxDisconnectionDuration: RECOVERY_MS }, perMessageDeflate: false })
export class RealtimeGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect {
  private readonly logger = new Logger('Realtime');

  constructor(
    private readonly feed: MarketFeedService,
    private readonly tokens: TokenService,
    private readonly orders: OrderChannel,
  ) {}

  afterInit(server: Server): void {
    this.feed.attach(server);
  }

  async handleConnection(socket: Socket): Promise<void> {
    if (socket.recovered) {
      // Rooms, data and missed messages restored by Socket.IO.
      if (socket.data.userId !== undefined) this.feed.online(socket.data.userId);
      return;
    }
    const raw = socket.handshake.auth?.token ?? socket.handshake.headers.authorization;
    const token = tokenFromHeader(raw);
    const userId = token ? await this.tokens.verify(token, 'user') : undefined;
    if (userId !== undefined) {
      socket.data.userId = userId;
      await socket.join(userRoom(userId));
      this.feed.online(userId);
    }
  }

  handleDisconnect(socket: Socket): void {
    if (socket.data.userId !== undefined) this.feed.offline(socket.data.userId);
  }

  @SubscribeMessage('subscribe')
  async subscribe(@ConnectedSocket() socket: Socket, @MessageBody() topics: unknown): Promise<SnapshotData[] | { error: string }> {
    if (!Array.isArray(topics) || topics.length > MAX_TOPICS) return { error: `send an array of at most ${MAX_TOPICS} topics` };
    const snapshots: SnapshotData[] = [];
    for (const topic of topics) {
      const parsed = parseTopic(topic);
      if (!parsed) return { error: `unknown topic: ${String(topic).slice(0, 64)}` };
      try {
        // Join first, then read: a message published in between has a higher seq than the snapshot.
        await socket.join(topic);
        snapshots.push(await this.feed.snapshot(topic as Topic, parsed));
      } catch {
        await socket.leave(topic);
        return { error: `unknown market in topic: ${String(topic).slice(0, 64)}` };
      }
    }
    return snapshots;
  }

  @SubscribeMessage('unsubscribe')
  async unsubscribe(@ConnectedSocket() socket: Socket, @MessageBody() topics: unknown): Promise<{ ok: true }> {
    if (Array.isArray(topics)) for (const t of topics.slice(0, MAX_TOPICS)) if (typeof t === 'string' && !t.startsWith('user:')) await socket.leave(t);
    return { ok: true };
  }

  /** `{id, method: 'place' | 'cancel', params}` → the ack `{id, type, code, message, data}` (never throws). */
  @SubscribeMessage('order')
  order(@ConnectedSocket() socket: Socket, @MessageBody() request: unknown): Promise<OrderAck> {
    return this.orders.answer(socket.handshake, request);
  }
}
