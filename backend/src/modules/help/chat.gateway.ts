import { Logger } from '@nestjs/common';
import { ConnectedSocket, MessageBody, OnGatewayInit, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import type { Server, Socket } from 'socket.io';
import { TokenService, tokenFromHeader } from '../../infra/auth/token.service';
import { BusinessError } from '../../infra/http/business-error';
import { validateBody } from '../../infra/http/validation';
import { resolveLang, translate } from '../../infra/i18n/i18n';
import { CHAT_ROOM_PREFIX, ChatPush, conversationRoom, OPERATORS_ROOM, operatorRoom } from './chat-push';
import { ChatService } from './chat.service';
import { ChatSendDto } from './help.dto';
import { PUSH_SERVER } from '../realtime/push-server';

type Subject = { type: 'user' | 'admin'; id: number };
type Ack = { ok: true; [k: string]: unknown } | { ok: false; error: string; code?: number };

/**
 * The chat's side of the push channel (same server as RealtimeGateway: /socket.io). A socket joins
 * a conversation's room with `chat:join {conversation_id, after}` — only the conversation's user
 * or an operator (an admin token in the handshake) — and gets the messages it missed after
 * `after`; operators join the notices room with `chat:ops`. Users may also send over the socket
 * (`chat:send`, `chat:read`); operators reply through the admin API (an HTTP call, audited).
 */
@WebSocketGateway(PUSH_SERVER)
export class ChatGateway implements OnGatewayInit {
  private readonly logger = new Logger('Chat');

  constructor(
    private readonly chat: ChatService,
    private readonly tokens: TokenService,
    private readonly push: ChatPush,
  ) {}

  afterInit(server: Server): void {
    this.push.attach(server);
    // An operator's logged-out session hears no more chat: its sockets leave the chat rooms (users' are swept by RealtimeGateway).
    this.tokens.onRevoked((type, id) => (type === 'admin' ? this.dropRevokedOperator(server, id) : Promise.resolve()));
  }

  /**
   * The operator's sockets (on every process, through the adapter) whose handshake token no
   * longer verifies leave the operators' room, every conversation they joined and their own
   * operator room; they stay connected (market data only).
   */
  private async dropRevokedOperator(server: Server, adminId: number): Promise<void> {
    try {
      for (const s of await server.in(operatorRoom(adminId)).fetchSockets()) {
        const token = tokenFromHeader(s.handshake.auth?.token ?? s.handshake.headers.authorization);
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
  private async joinAsOperator(socket: Socket, subject: Subject, room: string): Promise<boolean> {
    await socket.join([room, operatorRoom(subject.id)]);
    if ((await this.subject(socket))?.id === subject.id) return true;
    await socket.leave(room);
    await socket.leave(operatorRoom(subject.id));
    return false;
  }

  /**
   * Who the socket is: its handshake token as a user, else as an operator. Checked on every message
   * (TokenService caches briefly), so a token revoked by logout or a password change stops the chat
   * at once, as it stops HTTP (regression: the subject was cached on the socket for its lifetime).
   */
  private async subject(socket: Socket): Promise<Subject | undefined> {
    const token = tokenFromHeader(socket.handshake.auth?.token ?? socket.handshake.headers.authorization);
    if (!token) return undefined;
    const userId = await this.tokens.verify(token, 'user');
    if (userId !== undefined) return { type: 'user', id: userId };
    const adminId = await this.tokens.verify(token, 'admin');
    return adminId !== undefined ? { type: 'admin', id: adminId } : undefined;
  }

  @SubscribeMessage('chat:join')
  async join(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const subject = await this.subject(socket);
    if (!subject) return { ok: false, error: 'not logged in', code: 401 };
    const b = (body ?? {}) as { conversation_id?: unknown; after?: unknown };
    const id = String(b.conversation_id ?? '');
    const after = Number(b.after ?? 0);
    if (!Number.isSafeInteger(after) || after < 0) return { ok: false, error: 'after must be a message id' };
    if (!(await this.chat.mayAccess(subject, id))) return { ok: false, error: 'conversation not found', code: 3011 };
    if (subject.type === 'admin') {
      if (!(await this.joinAsOperator(socket, subject, conversationRoom(id)))) return { ok: false, error: 'not logged in', code: 401 };
    } else await socket.join(conversationRoom(id));
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
    if (subject?.type !== 'admin') return { ok: false, error: 'operators only', code: 401 };
    if (!(await this.joinAsOperator(socket, subject, OPERATORS_ROOM))) return { ok: false, error: 'operators only', code: 401 };
    return { ok: true };
  }

  @SubscribeMessage('chat:send')
  async send(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const subject = await this.subject(socket);
    if (subject?.type !== 'user') return { ok: false, error: 'users only', code: 401 };
    try {
      // The HTTP route's checks (help/chat/send): a bad image or an over-long text is refused, nothing sent.
      const dto = validateBody(ChatSendDto, typeof body === 'object' && body !== null ? body : {});
      const message = await this.chat.userSend(subject.id, dto.text, dto.image);
      await socket.join(conversationRoom(message.conversation_id));
      return { ok: true, message };
    } catch (err) {
      if (err instanceof BusinessError) {
        // The message in the socket's language (as the HTTP envelope), not the catalogue key.
        const lang = resolveLang(socket.handshake.auth?.lang ?? socket.handshake.headers.lang ?? socket.handshake.query?.lang);
        return { ok: false, error: translate(lang, err.messageKey, err.params), code: err.code };
      }
      throw err;
    }
  }
}
