import { Inject, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ConnectedSocket, MessageBody, OnGatewayConnection, OnGatewayDisconnect, OnGatewayInit, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { OrderAck, SnapshotData } from '@kestrel/contracts';
import type { Server, Socket } from 'socket.io';
import { handshakeToken, TokenService } from '../../infra/auth/token.service';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { OrderChannel } from '../coin-trade/order-channel';
import { MarketFeedService } from './market-feed.service';
import { answerOrderEvents } from './order-events';
import { PUSH_SERVER } from './push-server';
import { atExpiry, recheckMs, recheckSockets } from './sessions';
import { counted, countedOrder, ordersOverflow, readsBacklogged } from './flow';
import { feedRoom, feedRoomTopics, ParsedTopic, parseTopic, topicOf, topicKey, userRoom } from './topics';

/** The `connect_error` message of a connection whose session could not be read (`data.retry`: connect again). */
export const SESSION_UNAVAILABLE = 'session unavailable: connect again';
/** Topics per subscribe, and in all per socket (its rooms, or its batched set of topics). */
export const MAX_TOPICS = 40;
/** A room that carries market data (a topic, or a batched socket's set of topics): not private. */
const marketRoom = (room: string) => parseTopic(room) !== undefined || feedRoomTopics(room) !== undefined;

/**
 * The socket leaves every private room: the user's, and the chat conversations it joined. It keeps
 * the public market topics (and its own id), connected as a visitor's.
 */
function leavePrivate(s: { id: string; rooms: Set<string>; leave(room: string): unknown }): void {
  for (const room of s.rooms) if (room !== s.id && !marketRoom(room)) void s.leave(room);
}

/**
 * The push channel at /socket.io (DESIGN §8). Market topics are rooms a client subscribes to
 * (the answer carries each topic's snapshot); a valid handshake token also joins the user's
 * private room. Visitors get market data only. With a user token the socket may also place and
 * cancel spot orders (`order`, answered by coin-trade's OrderChannel with the /api envelope).
 * A socket that connects with `auth.feed = 'batch'` gets its market topics batched (`feed`): it
 * joins one room for its whole set of topics instead of one per topic (topics.ts `feedRoom`).
 */
@WebSocketGateway(PUSH_SERVER)
export class RealtimeGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnApplicationShutdown {
  private readonly logger = new Logger('Realtime');
  /** Socket.IO `order` events answered from the connection (`answerOrderEvents`), with the HTTP lane (`FAST_LANE`). */
  private readonly directOrders: boolean;
  private readonly recheckMs: number;
  private recheckTimer?: NodeJS.Timeout;
  private rechecking = false;

  constructor(
    private readonly feed: MarketFeedService,
    private readonly tokens: TokenService,
    private readonly orders: OrderChannel,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.directOrders = config.fastLane;
    this.recheckMs = recheckMs(config);
  }

  afterInit(server: Server): void {
    this.feed.attach(server);
    // A user's socket is in its private room before its connection is accepted (`admit`): the
    // client's `connect` comes after the join, so what it reads from then on (the app's resync)
    // covers every push it could not hear. A session that cannot be read (the database away)
    // refuses the connection (`connect_error`, the app connects again), never admits a visitor.
    server.use((socket, next) =>
      void this.admit(socket).then(
        () => next(),
        (err: Error) => {
          this.logger.warn(`a connection's session could not be read: ${err.message}; refusing it`);
          next(Object.assign(new Error(SESSION_UNAVAILABLE), { data: { retry: true } }));
        },
      ),
    );
    // A revoked session (logout, password change or reset) hears no more private pushes: its sockets
    // leave the private rooms and stay connected as a visitor's (market data; `order` and chat answer 401).
    this.tokens.onRevoked((type, id) => (type === 'user' ? this.dropRevoked(server, id) : Promise.resolve()));
    // What the sweep misses (a revocation on another process, whose token cache let a socket in
    // after the sweep; a sweep whose fetchSockets failed) is caught here, on every process.
    this.recheckTimer = setInterval(() => void this.recheck(server), this.recheckMs);
    this.recheckTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.recheckTimer) clearInterval(this.recheckTimer);
  }

  /**
   * This process's sockets in their user's room whose token is no longer valid (read uncached) end
   * their session (`endSession`); so do those a sweep on another process took out of the room (it
   * cannot change this process's count of who is online).
   */
  private async recheck(server: Server): Promise<void> {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      const inRoom: Array<[Socket, number]> = [];
      for (const s of server.of('/').sockets.values()) {
        const userId: number | undefined = s.data.userId;
        if (userId === undefined) continue;
        if (s.rooms.has(userRoom(userId))) inRoom.push([s, userId]);
        else this.endSession(s);
      }
      await recheckSockets(this.tokens, 'user', inRoom, (s) => this.endSession(s));
    } catch (err) {
      this.logger.warn(`re-checking the sockets' tokens failed: ${(err as Error).message}`);
    } finally {
      this.rechecking = false;
    }
  }

  /**
   * A socket's session ends for the private pushes (its token expired, or was revoked): it leaves
   * the private rooms (`leavePrivate`) and no longer counts as its user's online socket, so fills
   * build no balance or order messages for an empty room. Once: its disconnect then counts nothing.
   */
  private endSession(socket: Socket): void {
    leavePrivate(socket);
    const userId: number | undefined = socket.data.userId;
    if (userId === undefined) return;
    socket.data.userId = undefined;
    this.feed.offline(userId);
  }

  /**
   * The user's sockets (on every process, through the adapter) whose handshake token no longer
   * verifies leave every private room (`leavePrivate`). This process's own end their session
   * (`endSession`); another process's are proxies whose data cannot be changed from here: that
   * process's re-check finds them out of the user's room and counts them off.
   */
  private async dropRevoked(server: Server, userId: number): Promise<void> {
    try {
      const local = server.of('/').sockets;
      for (const s of await server.in(userRoom(userId)).fetchSockets()) {
        if ((await this.handshakeUser(s.handshake)) === userId) continue;
        const mine = local.get(s.id);
        if (mine) this.endSession(mine);
        else leavePrivate(s);
      }
    } catch (err) {
      this.logger.warn(`dropping revoked sockets of user ${userId} failed: ${(err as Error).message}`);
    }
  }

  private async handshakeUser(handshake: Socket['handshake']): Promise<number | undefined> {
    const token = handshakeToken(handshake);
    return token ? this.tokens.verify(token, 'user') : undefined;
  }

  handleConnection(socket: Socket): void {
    socket.on('order', (request: unknown, ack?: unknown) => this.order(socket, request, ack));
    if (this.directOrders) answerOrderEvents(socket, (request) => this.orders.answer(socket.handshake, request));
    // Every connection starts afresh (no connection-state recovery: push-server.ts).
    socket.data.batch = socket.handshake.auth?.feed === 'batch';
    // Counted online once connected (a client gone while `admit` read its session never connects,
    // never disconnects: counted then, it would stay so).
    const userId: number | undefined = socket.data.userId;
    if (userId === undefined) return;
    this.feed.online(userId);
    // The token's expiry ends the private pushes as a revocation does (the timer goes with the socket).
    atExpiry(socket, 'user', socket.data.expiresAt, () => this.endSession(socket));
  }

  /**
   * Before the connection is accepted (Socket.IO middleware): a socket whose token is a session
   * joins the user's private room (none for a visitor). A client gone meanwhile is never connected:
   * Socket.IO then takes it out of every room it joined here.
   */
  private async admit(socket: Socket): Promise<void> {
    const token = handshakeToken(socket.handshake);
    const session = token ? await this.tokens.session(token, 'user') : undefined;
    if (!session) return;
    const userId = session.subjectId;
    await socket.join(userRoom(userId));
    // Checked again once in the room: a revocation that committed in between (its sweep may have
    // run before this join) is seen here; one that commits later is caught by the periodic re-check
    // (a sweep does not see a socket not yet connected).
    if ((await this.handshakeUser(socket.handshake)) !== userId) {
      await socket.leave(userRoom(userId));
      return;
    }
    socket.data.userId = userId;
    socket.data.expiresAt = session.expiresAt;
  }

  handleDisconnect(socket: Socket): void {
    if (socket.data.userId !== undefined) this.feed.offline(socket.data.userId);
  }

  @SubscribeMessage('subscribe')
  async subscribe(@ConnectedSocket() socket: Socket, @MessageBody() topics: unknown): Promise<SnapshotData[] | { error: string }> {
    if (!Array.isArray(topics) || topics.length > MAX_TOPICS) return { error: `send an array of at most ${MAX_TOPICS} topics` };
    // Flow control: a client that sends subscribes faster than it reads their answers (each up to
    // 40 snapshots: database reads, then up to a megabyte waiting in its socket's buffer) is refused
    // until it catches up, so one socket can exhaust neither the memory nor the pool.
    if (readsBacklogged(socket)) return { error: 'too many subscribes waiting: read their answers first' };
    // Every topic and its market are checked before any is joined: a refused subscribe changes
    // nothing of what the socket follows.
    const parsed = topics.map(parseTopic);
    const bad = parsed.findIndex((p) => !p);
    if (bad >= 0) return { error: `unknown topic: ${shown(topics[bad])}` };
    // Each topic by its market's canonical symbol: the room it is published to, one however spelled
    // (`depth:btcusdt` joined as such would get its snapshot, then nothing; and a room per spelling).
    const canonical = parsed.map((p) => this.feed.canonical(p!));
    const unknown = canonical.findIndex((p) => !p);
    if (unknown >= 0) return { error: `unknown market in topic: ${shown(topics[unknown])}` };
    const names = (canonical as ParsedTopic[]).map(topicOf);
    // Counted and joined in one turn (no await between): concurrent subscribes cannot pass the cap together.
    const following = this.following(socket);
    if (following.size + new Set(names.filter((n) => !following.has(n))).size > MAX_TOPICS)
      return { error: `a connection follows at most ${MAX_TOPICS} topics: unsubscribe some first` };
    const joined = this.follow(socket, names, true);
    return counted(socket, async () => {
      const snapshots: SnapshotData[] = [];
      try {
        // Joined first, then read: a message published in between has a higher seq than the snapshot.
        await joined;
        for (const [i, topic] of names.entries()) snapshots.push(await this.feed.snapshot(topic, canonical[i]!));
      } catch {
        // A snapshot that could not be read (the database away): the ack still comes; subscribe again.
        return { error: 'snapshot unavailable: subscribe again' };
      }
      return snapshots;
    });
  }

  @SubscribeMessage('unsubscribe')
  async unsubscribe(@ConnectedSocket() socket: Socket, @MessageBody() topics: unknown): Promise<{ ok: true }> {
    if (Array.isArray(topics)) {
      // Market topics only, spelled as on subscribe: never a private room.
      const names: string[] = [];
      let following: Set<string> | undefined;
      for (const t of topics.slice(0, MAX_TOPICS)) {
        const parsed = parseTopic(t);
        if (!parsed) continue;
        const canonical = this.feed.canonical(parsed);
        if (canonical) names.push(topicOf(canonical));
        else {
          // A market no longer in the registry (disabled at run time): the topics followed that name
          // it, by the registry's matching of symbols, are left all the same (else they stayed joined
          // and counted against the cap for the connection's life).
          const key = topicKey(parsed);
          for (const f of (following ??= this.following(socket))) if (topicKey(parseTopic(f)!) === key) names.push(f);
        }
      }
      await this.follow(socket, names, false);
    }
    return { ok: true };
  }

  /** The market topics the socket follows: its topic rooms, or a batched socket's set. */
  private following(socket: Socket): Set<string> {
    if (socket.data.batch) return new Set<string>(socket.data.topics ?? []);
    return new Set([...socket.rooms].filter((room) => parseTopic(room) !== undefined));
  }

  /**
   * Joins or leaves topics: their rooms, or for a batched socket the room of its new set of topics.
   * What the socket follows changes before the first await.
   */
  private async follow(socket: Socket, topics: readonly string[], on: boolean): Promise<void> {
    if (!socket.data.batch) {
      if (on) return socket.join([...topics]);
      for (const t of topics) await socket.leave(t);
      return;
    }
    const before: string[] = socket.data.topics ?? [];
    const after = on ? [...new Set([...before, ...topics])] : before.filter((t) => !topics.includes(t));
    if (after.length === before.length) return;
    socket.data.topics = after;
    // Joined before the old set is left, in one turn (no cycle's feed falls between the two rooms),
    // and every other feed room left in that same turn: with an await between them, a subscribe and
    // an unsubscribe arriving together left each other's new room, and the socket was in none.
    const room = after.length ? feedRoom(after) : undefined;
    const joined = room ? socket.join(room) : undefined;
    const left = [...socket.rooms].filter((r) => feedRoomTopics(r) !== undefined && r !== room).map((r) => socket.leave(r));
    await joined;
    await Promise.all(left);
  }

  /**
   * `{id, method: 'place' | 'cancel', params}` → the ack `{id, type, code, message, data}`. Bound
   * on the socket itself (in `handleConnection`, before its first await, where Nest binds the
   * `@SubscribeMessage` handlers), not through Nest's message pipeline: none of the app's global
   * pipe, interceptors or filter acts on Socket.IO messages (each passes them through), and that
   * pipeline's per-message rxjs chain was ~10 % of the server's main thread under
   * `BENCH_TRANSPORT=ws npm run bench:api`. OrderChannel does the token check, validation and
   * error mapping, as for every other way in, and never throws. The messages that ask for an ack
   * are read and answered by `answerOrderEvents` before Socket.IO decodes them (unless
   * `FAST_LANE=off`); this listener answers the rest as Socket.IO delivers them.
   */
  private order(socket: Socket, request: unknown, ack: unknown): void {
    if (ordersOverflow(socket)) return;
    countedOrder(socket, this.orders.answer(socket.handshake, request), (answer: OrderAck) => {
      if (typeof ack === 'function') ack(answer);
    });
  }
}

/** A topic as an error names it: any JSON value a client sent, shortened (never throws). */
function shown(topic: unknown): string {
  return (typeof topic === 'string' ? topic : (JSON.stringify(topic) ?? typeof topic)).slice(0, 64);
}

