import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { translate } from '../i18n/i18n';
import { Envelope, Reply } from './envelope';
import { ErrorCode } from './error-codes';
import { requestLang } from './request-context';

/** Wraps every handler result into `{type:"ok", code:1, message, data}`, always HTTP 200 (DESIGN §5; Nest would answer a POST with 201). */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<Envelope | unknown> {
    // Socket.IO handlers answer through their own acks: the envelope is the HTTP contract.
    if (ctx.getType() !== 'http') return next.handle();
    const http = ctx.switchToHttp();
    const lang = requestLang(http.getRequest<Request>());
    http.getResponse<Response>().status(200);
    return next.handle().pipe(map((result: unknown) => okEnvelope(lang, result)));
  }
}

/** A handler's result as the success envelope. */
export function okEnvelope(lang: string, result: unknown): Envelope {
  const reply = result instanceof Reply ? result : new Reply(result ?? null);
  return { type: 'ok', code: ErrorCode.OK, message: translate(lang, reply.messageKey), data: reply.data };
}
