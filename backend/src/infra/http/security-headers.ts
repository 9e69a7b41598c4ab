import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';

/**
 * The web app's Content-Security-Policy: everything from this origin (scripts, styles, the API and
 * the Socket.IO connection), map tiles from OpenStreetMap (the location picker), images as data:
 * and blob: URLs (QR codes, upload previews), inline style attributes (React and Leaflet), no
 * plugins, no framing by any site (`frame-ancestors 'none'`), forms and <base> to this origin only.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https://*.tile.openstreetmap.org",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** One year, subdomains included: sent only on answers to requests that came over TLS. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * The policy of the API's answers (JSON, images, files): data, never a page, so nothing in one
 * may run, load anything or be framed (OWASP's REST Security Cheat Sheet). A stricter policy than
 * the web app's, and ~300 bytes shorter on every order answer.
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** What every answer carries, page or data. */
const COMMON: ReadonlyArray<[string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
];

/** Pages (the web app, its files, the Swagger UI, 404s): helmet's set, with the app's policy above. */
const DOCUMENT: ReadonlyArray<[string, string]> = [
  ['Content-Security-Policy', CONTENT_SECURITY_POLICY],
  ...COMMON,
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/**
 * The API's answers (`/api/…` except the Swagger UI, Socket.IO polling): the headers that act on a
 * data answer. The rest of helmet's set governs documents (opener, origin cluster, DNS prefetch,
 * IE's download and XSS filters, Flash policies) and is left off. Not stored by any cache unless a
 * route says otherwise (the public NFT and news images do).
 */
const API: ReadonlyArray<[string, string]> = [['Content-Security-Policy', API_CONTENT_SECURITY_POLICY], ...COMMON, ['Cache-Control', 'no-store']];

/**
 * Whether the request is for the API's data (not a page): `/api/…` but the Swagger UI, and Socket.IO.
 * In any case, as Express routes it (`/API/user/center` reaches the API: it must not go out as a page).
 */
export function isApiRequest(url: string): boolean {
  const path = url.toLowerCase();
  return path.startsWith('/api/') ? !path.startsWith('/api/docs') : path.startsWith('/socket.io/');
}

/** Whether a proxy at `address` (hop `i`) is trusted: Express's compiled `trust proxy` setting. */
export type TrustProxy = (address: string, i: number) => boolean;

/** The request came over TLS: to us directly, or to a trusted proxy that says so in X-Forwarded-Proto (as Express's `req.protocol`). */
export function cameOverTls(req: IncomingMessage, trust: TrustProxy): boolean {
  if ((req.socket as TLSSocket).encrypted) return true;
  if (!trustedPeer(req.socket, trust)) return false;
  const header = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

/**
 * Whether the connection's peer is a trusted proxy, worked out once per connection (its address
 * does not change; parsing it for every request of a keep-alive connection cost ~1 % of the
 * server's CPU under the order load).
 */
const peerTrusted = new WeakMap<object, boolean>();
function trustedPeer(socket: IncomingMessage['socket'], trust: TrustProxy): boolean {
  let trusted = peerTrusted.get(socket);
  if (trusted === undefined) {
    trusted = trust(socket.remoteAddress ?? '', 0);
    peerTrusted.set(socket, trusted);
  }
  return trusted;
}

export function setSecurityHeaders(req: IncomingMessage, res: ServerResponse, trust: TrustProxy): void {
  for (const [name, value] of isApiRequest(req.url ?? '') ? API : DOCUMENT) res.setHeader(name, value);
  if (cameOverTls(req, trust)) res.setHeader('Strict-Transport-Security', HSTS);
  keepFrameAncestors(res);
}

/**
 * A component that later sets its own policy (Express's default 404 and error pages send
 * `default-src 'none'`) keeps `frame-ancestors 'none'`: no answer of ours can be framed.
 */
function keepFrameAncestors(res: ServerResponse): void {
  const set = res.setHeader;
  res.setHeader = function (this: ServerResponse, name: string, value: number | string | readonly string[]) {
    if (name.toLowerCase() === 'content-security-policy' && typeof value === 'string' && !value.includes('frame-ancestors')) value = `${value}; frame-ancestors 'none'`;
    return set.call(this, name, value);
  } as ServerResponse['setHeader'];
}

/**
 * Sets the headers on every request the HTTP server receives, before any listener runs: Express
 * and Nest's routes, the order fast lane, the static web app and Socket.IO's polling transport all
 * answer through the same `request` event, whatever order they attached their listeners in.
 */
export function secureEveryResponse(server: Server, trust: TrustProxy): void {
  const emit = server.emit;
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') setSecurityHeaders(args[0] as IncomingMessage, args[1] as ServerResponse, trust);
    return (emit as (this: Server, event: string | symbol, ...rest: unknown[]) => boolean).call(this, event, ...args);
  } as Server['emit'];
}
