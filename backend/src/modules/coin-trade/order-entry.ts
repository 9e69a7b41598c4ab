import { Injectable, Logger } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import type { AuthContext } from '../../infra/auth/guards';
import { BusinessError } from '../../infra/http/business-error';
import { Envelope, Reply } from '../../infra/http/envelope';
import { okEnvelope } from '../../infra/http/envelope.interceptor';
import { ErrorCode } from '../../infra/http/error-codes';
import { errorEnvelope } from '../../infra/http/error-envelope';
import { validateBody } from '../../infra/http/validation';
import { CoinTradeService, OrderView } from './coin-trade.service';
import { BatchOrdersDto } from './dto/batch-orders.dto';
import { CancelOrderDto, PlaceOrderDto } from './dto/place-order.dto';

/** What names a request in a log line: `reqId` (HTTP), `requestId` (a socket message's id), `index` (in a batch). */
export type LogWhere = Record<string, unknown>;

/** One order-entry command: the DTO its input must pass and the handler that runs it. */
export interface OrderOp<T extends object> {
  dto: ClassConstructor<T>;
  handle: (auth: AuthContext, dto: T) => Promise<Reply<OrderView>>;
}

/**
 * Placing and cancelling, defined once for every way in (DESIGN §5):
 *
 * - the Nest routes POST / PUT coin/trade (the controller calls `ops`; the global pipe, guard,
 *   interceptor and exception filter do the rest) and the HTTP fast lane, which serves those
 *   same two routes with `ops` (`coinTradeLaneRoutes`);
 * - each entry of POST coin/batch_trade and each `order` message of the Socket.IO channel, which
 *   go through `answer`: the DTO checked by `validateBody` (the pipe's options and error mapping)
 *   and the result or refusal turned into the envelope by `okEnvelope` / `errorEnvelope` (what the
 *   interceptor and the filter use). So every path gives the same codes and messages.
 */
@Injectable()
export class OrderEntry {
  private readonly logger = new Logger('OrderEntry');

  readonly ops: { place: OrderOp<PlaceOrderDto>; cancel: OrderOp<CancelOrderDto> } = {
    /** Answered after it is journaled and matched. */
    place: { dto: PlaceOrderDto, handle: async (auth, dto) => new Reply(await this.trade.place(auth.subjectId, dto), 'msg.order_placed') },
    /** A waiting order is cancelled and what is still frozen for it released. */
    cancel: { dto: CancelOrderDto, handle: async (auth, dto) => new Reply(await this.trade.cancel(auth.subjectId, dto.order_id), 'msg.order_cancel_sent') },
  };

  constructor(private readonly trade: CoinTradeService) {}

  /**
   * One command from an unchecked body to the envelope HTTP would answer for it; never throws.
   * `where` names the request in the log line of an unexpected failure (its HTTP request id, or
   * the socket message's id).
   */
  async answer<T extends object>(lang: string, auth: AuthContext, op: OrderOp<T>, body: unknown, where: LogWhere = {}): Promise<Envelope> {
    try {
      return okEnvelope(lang, await op.handle(auth, validateBody(op.dto, plainObject(body))));
    } catch (err) {
      return this.failure(lang, err, where);
    }
  }

  /**
   * Up to 10 orders, each checked and placed on its own (not atomic): each result is that order's
   * envelope, in request order. They are submitted together, so they usually share one group
   * commit; the order in which they reach the book is not guaranteed.
   */
  async batch(auth: AuthContext, lang: string, dto: BatchOrdersDto, where: LogWhere = {}): Promise<Reply<{ results: Envelope[] }>> {
    const results = await Promise.all(dto.orders.map((order, index) => this.answer(lang, auth, this.ops.place, order, { ...where, index })));
    return new Reply({ results });
  }

  /** A refusal as the exception filter answers it; anything else is our fault (logged, code 9000). */
  failure(lang: string, err: unknown, where: LogWhere = {}): Envelope {
    if (err instanceof BusinessError) return errorEnvelope(lang, err.code, err.messageKey, err.params, err.data);
    this.logger.error({ err, ...where }, 'unhandled error');
    return errorEnvelope(lang, ErrorCode.INTERNAL, 'error.internal');
  }
}

/** An entry must be an object, as a JSON body must (the fast lane answers a non-object body the same way). */
export function plainObject(body: unknown): object {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BusinessError(ErrorCode.VALIDATION, 'error.validation');
  return body;
}
