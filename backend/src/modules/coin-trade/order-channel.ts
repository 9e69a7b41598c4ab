import { Injectable } from '@nestjs/common';
import type { OrderAck, OrderRequestId } from '@kestrel/contracts';
import type { Socket } from 'socket.io';
import { AuthContext } from '../../infra/auth/guards';
import { handshakeToken, TokenService } from '../../infra/auth/token.service';
import { handshakeLang } from '../../infra/i18n/i18n';
import { Envelope } from '../../infra/http/envelope';
import { ErrorCode } from '../../infra/http/error-codes';
import { errorEnvelope } from '../../infra/http/error-envelope';
import { validateBody } from '../../infra/http/validation';
import { isRequestId, OrderRequestDto } from './dto/order-request.dto';
import { OrderEntry, plainObject } from './order-entry';

/** What OrderChannel reads of a connection's opening: the token, the language. */
export type Handshake = Pick<Socket['handshake'], 'auth' | 'headers' | 'query'>;

/**
 * The `order` message of the Socket.IO connection: `{id, method: 'place' | 'cancel', params}`
 * answered through the ack with `{id, type, code, message, data}` — the envelope POST / PUT
 * coin/trade answer, from the same OrderEntry definition. In HTTP's order: the token first (401),
 * then the request's shape, then `params` against the method's DTO.
 *
 * The token is the handshake's (`auth.token`, else the `Authorization` header, as the gateway
 * reads it) and is checked on every message with the user guard's TokenService, so a token that
 * is revoked or expires stops order entry at once, as it stops HTTP — and a message sent before
 * the gateway's own connection handler has finished is not refused.
 */
@Injectable()
export class OrderChannel {
  constructor(
    private readonly entry: OrderEntry,
    private readonly tokens: TokenService,
  ) {}

  async answer(handshake: Handshake, request: unknown): Promise<OrderAck> {
    const lang = handshakeLang(handshake);
    const id = requestIdOf(request);
    // What an unexpected failure's log line names the message by.
    const where = { requestId: id };
    const ack = (e: Envelope) => ({ id, ...e }) as OrderAck;
    let auth: AuthContext | undefined;
    let req: OrderRequestDto;
    try {
      auth = await this.authenticate(handshake);
      if (!auth) return ack(errorEnvelope(lang, ErrorCode.NOT_LOGGED_IN, 'error.not_logged_in'));
      req = validateBody(OrderRequestDto, plainObject(request));
    } catch (err) {
      return ack(this.entry.failure(lang, err, where));
    }
    const { ops } = this.entry;
    return ack(
      req.method === 'place'
        ? await this.entry.answer(lang, auth, ops.place, req.params, where)
        : await this.entry.answer(lang, auth, ops.cancel, req.params, where),
    );
  }

  /** The handshake's user, when its token verifies (checked again on every message). */
  async authenticate(handshake: Handshake): Promise<AuthContext | undefined> {
    const token = handshakeToken(handshake);
    const subjectId = token ? await this.tokens.verify(token, 'user') : undefined;
    return token && subjectId !== undefined ? { subjectType: 'user', subjectId, token } : undefined;
  }
}

/** The id to echo: the request's own when it is a usable one, else null. */
function requestIdOf(request: unknown): OrderRequestId | null {
  const id = typeof request === 'object' && request !== null ? (request as { id?: unknown }).id : undefined;
  return isRequestId(id) ? id : null;
}
