import { Inject, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ConnectedSocket, MessageBody, OnGatewayInit, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Server, Socket } from 'socket.io';
import { handshakeToken, TokenService } from '../../infra/auth/token.service';
import { APP_CONFIG, AppConfig } from '../../infra/config/config';
import { BusinessError } from '../../infra/http/business-error';
import { isDataException } from '../../infra/http/all-exceptions.filter';
import { ErrorCode } from '../../infra/http/error-codes';
import { validateBody } from '../../infra/http/validation';
import type { MessageKey } from '../../infra/i18n/catalogue';
import { handshakeLang, MessageParams, translate } from '../../infra/i18n/i18n';
import { CHAT_ROOM_PREFIX, ChatPush, conversationRoom, OPERATORS_ROOM, operatorRoom } from './chat-push';
import { ChatService } from './chat.service';
import { ChatSendDto } from './help.dto';
import { PUSH_SERVER } from '../realtime/push-server';
import { counted, readsBacklogged } from '../realtime/flow';
import { atExpiry, recheckMs, recheckSockets } from '../realtime/sessions';

type Subject = { type: 'user' | 'admin'; id: number };
/** A subject with its token's expiry (ms since the epoch). */
type Session = Subject & { expiresAt: number };
type Ack = { ok: true; [k: string]: unknown } | { ok: false; error: string; code?: number };

/** A refusal with its code and its message in the socket's language (as the HTTP envelope's), not the catalogue key. */
function refused(socket: Socket, code: number, key: MessageKey, params?: MessageParams): Ack {
  return { ok: false, error: translate(handshakeLang(socket.handshake), key, params), code };
}

/**
 * The chat's side of the push channel (same server as RealtimeGateway: /socket.io). A socket joins
 * a conversation's room with `chat:join {conversation_id, after}` — only the conversation's user
 * or an operator (an admin token in the handshake) — and gets the messages it missed after
 * `after`; operators join the notices room with `chat:ops`. Users may also send over the socket
 * (`chat:send`, `chat:read`); operators reply through the admin API (an HTTP call, audited).
 */
@WebSocketGateway(PUSH_SERVER)
export class ChatGateway implements OnGatewayInit, OnApplicationShutdown {
  private readonly logger = new Logger('Chat');
  private readonly recheckMs: number;
  private recheckTimer?: NodeJS.Timeout;
  private rechecking = false;

  constructor(
    private readonly chat: ChatService,
    private readonly tokens: TokenService,
    private readonly push: ChatPush,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.recheckMs = recheckMs(config);
  }

  afterInit(server: Server): void {
    this.push.attach(server);
    // An operator's logged-out session hears no more chat: its sockets leave the chat rooms (users' are swept by RealtimeGateway).
    this.tokens.onRevoked((type, id) => (type === 'admin' ? this.dropRevokedOperator(server, id) : Promise.resolve()));
    // What a sweep misses (a revocation on another process; a failed fetchSockets) is caught here, on every process.
    this.recheckTimer = setInterval(() => void this.recheck(server), this.recheckMs);
    this.recheckTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.recheckTimer) clearInterval(this.recheckTimer);
  }

  /** The socket leaves the chat rooms, and an operator's its operator room: it hears no more chat (it stays connected). */
  private static leaveChat(socket: Socket, subject: Subject): void {
    for (const room of socket.rooms)
      if (room.startsWith(CHAT_ROOM_PREFIX) || (subject.type === 'admin' && room === operatorRoom(subject.id))) void socket.leave(room);
  }

  /**
   * After a join: the socket is in chat rooms as this subject until its token expires (then it
   * leaves them, as on a logout) or the periodic re-check finds the token no longer valid.
   */
  private watch(socket: Socket, session: Session): void {
    const subject: Subject = { type: session.type, id: session.id };
    socket.data.chat = subject;
    atExpiry(socket, 'chat', session.expiresAt, () => ChatGateway.leaveChat(socket, subject));
  }

  /** This process's sockets in chat rooms (or an operator room) whose token is no longer valid (read uncached) leave them. */
  private async recheck(server: Server): Promise<void> {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      const joined: Record<Subject['type'], Array<[Socket, number]>> = { user: [], admin: [] };
      for (const s of server.of('/').sockets.values()) {
        const subject: Subject | undefined = s.data.chat;
        if (subject && [...s.rooms].some((r) => r.startsWith(CHAT_ROOM_PREFIX) || r === operatorRoom(subject.id))) joined[subject.type].push([s, subject.id]);
      }
      for (const type of ['user', 'admin'] as const)
        await recheckSockets(this.tokens, type, joined[type], (s) => ChatGateway.leaveChat(s, { type, id: s.data.chat.id }));
    } catch (err) {
      this.logger.warn(`re-checking the chat sockets' tokens failed: ${(err as Error).message}`);
    } finally {
      this.rechecking = false;
    }
  }

  /**
   * The operator's sockets (on every process, through the adapter) whose handshake token no
   * longer verifies leave the operators' room, every conversation they joined and their own
   * operator room; they stay connected (market data only).
   */
  private async dropRevokedOperator(server: Server, adminId: number): Promise<void> {
    try {
      for (const s of await server.in(operatorRoom(adminId)).fetchSockets()) {
        const token = handshakeToken(s.handshake);
        if (token && (await this.tokens.verify(token, 'admin')) === adminId) continue;
        for (const room of s.rooms) if (room === operatorRoom(adminId) || room.startsWith(CHAT_ROOM_PREFIX)) s.leave(room);
      }
    } catch (err) {
      this.logger.warn(`dropping revoked sockets of operator ${adminId} failed: ${(err as Error).message}`);
    }
  }

  /**
   * Joins a room of a chat push for an operator's socket, with its operator room (found by the
   * revocation sweep), then checks the token again: a logout that committed in between (its sweep
   * may have run before the join) is seen here, and the rooms are left.
   */
  private async joinAsOperator(socket: Socket, subject: Session, room: string): Promise<boolean> {
    await socket.join([room, operatorRoom(subject.id)]);
    if ((await this.subject(socket))?.id === subject.id) {
      this.watch(socket, subject);
      return true;
    }
    await socket.leave(room);
    await socket.leave(operatorRoom(subject.id));
    return false;
  }

  /**
   * Who the socket is: its handshake token as a user, else as an operator. Checked on every message
   * (TokenService caches briefly), so a token revoked by logout or a password change stops the chat
   * at once, as it stops HTTP (regression: the subject was cached on the socket for its lifetime).
   */
  private async subject(socket: Socket): Promise<Session | undefined> {
    const token = handshakeToken(socket.handshake);
    if (!token) return undefined;
    const user = await this.tokens.session(token, 'user');
    if (user) return { type: 'user', id: user.subjectId, expiresAt: user.expiresAt };
    const admin = await this.tokens.session(token, 'admin');
    return admin ? { type: 'admin', id: admin.subjectId, expiresAt: admin.expiresAt } : undefined;
  }

  @SubscribeMessage('chat:join')
  async join(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const subject = await this.subject(socket);
    if (!subject) return refused(socket, 401, 'error.not_logged_in');
    const b = (body ?? {}) as { conversation_id?: unknown; after?: unknown };
    const id = String(b.conversation_id ?? '');
    const after = Number(b.after ?? 0);
    if (!Number.isSafeInteger(after) || after < 0) return refused(socket, ErrorCode.VALIDATION, 'error.validation');
    // Flow control, as for market subscribes: a client asking again and again without reading the
    // answers (each up to 200 messages) would fill the server's memory and hold the database's pool.
    if (readsBacklogged(socket)) return { ok: false, error: 'too many joins waiting: read their answers first' };
    return counted(socket, () => this.joinAndRead(socket, subject, id, after));
  }

  private async joinAndRead(socket: Socket, subject: Session, id: string, after: number): Promise<Ack> {
    if (!(await this.chat.mayAccess(subject, id))) return refused(socket, ErrorCode.HELP_CONVERSATION_NOT_FOUND, 'error.help_conversation_not_found');
    if (subject.type === 'admin') {
      if (!(await this.joinAsOperator(socket, subject, conversationRoom(id)))) return refused(socket, 401, 'error.not_logged_in');
    } else {
      await socket.join(conversationRoom(id));
      this.watch(socket, subject);
    }
    // Joined first, then read: a message pushed in between is also in the history (the client drops duplicates by id).
    return { ok: true, conversation_id: id, messages: await this.chat.history(subject, id, after) };
  }

  @SubscribeMessage('chat:leave')
  async leave(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<Ack> {
    await socket.leave(conversationRoom(String((body as { conversation_id?: unknown })?.conversation_id ?? '')));
    return { ok: true };
  }

  @SubscribeMessage('chat:ops')
  async ops(@ConnectedSocket() socket: Socket): Promise<Ack> {
    const subject = await this.subject(socket);
    if (subject?.type !== 'admin' || !(await this.joinAsOperator(socket, subject, OPERATORS_ROOM))) return refused(socket, 401, 'error.not_logged_in');
    return { ok: true };
  }

  @SubscribeMessage('chat:send')
  async send(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const subject = await this.subject(socket);
    if (subject?.type !== 'user') return refused(socket, 401, 'error.not_logged_in');
    try {
      // The HTTP route's checks (help/chat/send): a bad image or an over-long text is refused, nothing sent.
      const dto = validateBody(ChatSendDto, typeof body === 'object' && body !== null ? body : {});
      const message = await this.chat.userSend(subject.id, dto.text, dto.image, dto.client_id);
      await socket.join(conversationRoom(message.conversation_id));
      this.watch(socket, subject);
      return { ok: true, message };
    } catch (err) {
      if (err instanceof BusinessError) return refused(socket, err.code, err.messageKey, err.params);
      // Text the database refuses (a NUL character): bad input, as the HTTP route answers it (regression: no answer at all).
      if (isDataException(err)) return refused(socket, ErrorCode.VALIDATION, 'error.validation');
      throw err;
    }
  }
}
