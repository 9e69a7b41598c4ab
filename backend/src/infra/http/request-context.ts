import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { Lang } from '../i18n/catalogue';
import { resolveLang } from '../i18n/i18n';

/** The language of this request, from the `lang` header (default en). */
export function requestLang(req: Request): Lang {
  return resolveLang(req.headers['lang']);
}

export const RequestLang = createParamDecorator((_: unknown, ctx: ExecutionContext): Lang => requestLang(ctx.switchToHttp().getRequest()));

/** The caller's IP as seen by Express (honours `trust proxy` when configured). */
export const ClientIp = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
});
