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

/**
 * The caller's address as the per-address rate limits count it: the IP as seen by Express (honours
 * `trust proxy` when configured), an IPv4-mapped IPv6 address as its IPv4, and any other IPv6
 * address as its /64 (one subscriber's block: every address in it counts as one, or a single
 * subscriber would have 2^64 fresh addresses to guess from).
 */
export const ClientIp = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return limitAddress(req.ip ?? req.socket.remoteAddress ?? 'unknown');
});

/** See `ClientIp`: "::ffff:1.2.3.4" → "1.2.3.4", "2001:db8:1:2:3:4:5:6" → "2001:db8:1:2::/64"; anything else as it is. */
export function limitAddress(ip: string): string {
  const addr = ip.split('%')[0].toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(addr);
  if (mapped) return mapped[1];
  if (!addr.includes(':')) return ip;
  const halves = addr.split('::');
  if (halves.length > 2) return ip;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  // A dotted IPv4 tail is two groups.
  const count = (gs: string[]) => gs.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const gap = 8 - count(head) - count(tail);
  if (halves.length === 2 ? gap < 0 : gap !== 0) return ip;
  const groups = [...head, ...Array<string>(gap).fill('0'), ...tail];
  const prefix = groups.slice(0, 4);
  if (prefix.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return ip;
  return `${prefix.map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}
