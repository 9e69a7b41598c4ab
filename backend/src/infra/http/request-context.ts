import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { Lang } from '../i18n/catalogue';
import { resolveLang } from '../i18n/i18n';

/** The language of this request, from the `lang` header (default en). */
export function requestLang(req: Request): Lang {
  return resolveLang(req.headers['lang']);
}

export const RequestLang = createParamDecorator((_: unknown, ctx: ExecutionContext): Lang => requestLang(ctx.switchToHttp().getRequest()));

/** The request's id (`x-request-id`, set by the request logger): what its log lines name it by. */
export const RequestId = createParamDecorator((_: unknown, ctx: ExecutionContext): string | undefined => {
  const id = ctx.switchToHttp().getRequest<Request>().id;
  return id === undefined ? undefined : String(id);
});

/** The caller's IP as seen by Express (honours `trust proxy` when configured). */
export const ClientIp = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
});
