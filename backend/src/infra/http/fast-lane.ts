import { Logger } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { parse as parseForm, type ParsedUrlQuery } from 'node:querystring';
import type { HttpLogger } from 'pino-http';
import { AuthContext } from '../auth/guards';
import { TokenService, tokenFromHeader } from '../auth/token.service';
import { resolveLang } from '../i18n/i18n';
import { requestId } from '../logging/logging';
import { formatBytes } from './body-parsers';
import { splitUrl } from './url';
import { BusinessError } from './business-error';
import { okEnvelope } from './envelope.interceptor';
import { Envelope } from './envelope';
import { ErrorCode } from './error-codes';
import { errorEnvelope } from './error-envelope';
import { validateBody } from './validation';

/** One route the lane answers: a user-token route with a form or JSON body. */
export interface LaneRoute<T extends object> {
  method: 'POST' | 'PUT';
  /** The full path, e.g. `/api/coin/trade` (a query string is ignored). */
  path: string;
  dto: ClassConstructor<T>;
  /** The controller's handler: what it returns is wrapped like the envelope interceptor does. */
  handle: (auth: AuthContext, dto: T) => Promise<unknown>;
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/**
 * A lean HTTP path for the few routes that carry trading load (placing and cancelling orders).
 * Express + Nest cost ~1 ms of CPU per request here (router, middleware, guards, pipes, rxjs,
 * per-request logger), more than the order itself; the lane answers these routes straight from
 * Node's HTTP server with the same rules and the same answers:
 *
 * - the token is checked by the same TokenService as the user guard (401 envelope otherwise);
 * - the form or JSON body is validated by the controller's DTO with the pipe's options and
 *   error mapping (`validateBody`);
 * - the controller's own method runs, and its result or BusinessError becomes the same envelope
 *   the interceptor and exception filter produce;
 * - the request id is Express's (`x-request-id`, the same function), and the access line is
 *   written by the same pino-http logger: at `debug`, as for order entry through Express, so the
 *   lane runs it only when that level is on (its per-request child loggers cost ~7 µs even when
 *   nothing is written). An unhandled error is logged with the request id, as the filter does.
 *
 * Anything else — other routes, other methods, multipart bodies — goes to Express untouched, so
 * the controller stays the documented route (OpenAPI) and the fallback. Set `FAST_LANE=off` to
 * send everything through Express.
 */
export class FastLane {
  private readonly logger = new Logger('FastLane');
  private readonly routes = new Map<string, LaneRoute<object>>();

  /** `bodyLimit`: the JSON and form cap of the Express parsers (BODY_LIMIT_BYTES). */
  constructor(
    private readonly tokens: TokenService,
    private readonly httpLog: HttpLogger,
    private readonly bodyLimit = 1024 * 1024,
  ) {}

  route<T extends object>(r: LaneRoute<T>): this {
    this.routes.set(`${r.method} ${r.path}`, r as unknown as LaneRoute<object>);
    return this;
  }

  /** Puts the lane in front of the server's current request listeners (Express, Socket.IO). */
  attach(server: Server): void {
    const others = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const type = mediaType(req.headers['content-type']);
      const route = this.match(req, type);
      if (route) void this.serve(route, type, req, res);
      else for (const listener of others) listener.call(server, req, res);
    });
  }

  private match(req: IncomingMessage, type: string): LaneRoute<object> | undefined {
    if (req.method !== 'POST' && req.method !== 'PUT') return undefined;
    const route = this.routes.get(`${req.method} ${splitUrl(req.url).path}`);
    if (!route) return undefined;
    return type === FORM || type === JSON_TYPE || type === '' ? route : undefined;
  }

  private async serve(route: LaneRoute<object>, type: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.httpLog.logger.isLevelEnabled('debug')) this.httpLog(req, res);
    else req.id = requestId(req, res);
    const lang = resolveLang(req.headers['lang']);
    let answer: Envelope;
    try {
      const token = tokenFromHeader(req.headers.authorization);
      const subjectId = token ? await this.tokens.verify(token, 'user') : undefined;
      const text = await readBody(req, this.bodyLimit);
      if (token === undefined || subjectId === undefined) {
        answer = errorEnvelope(lang, ErrorCode.NOT_LOGGED_IN, 'error.not_logged_in');
      } else {
        const dto = validateBody(route.dto, parseBody(type, text));
        answer = okEnvelope(lang, await route.handle({ subjectType: 'user', subjectId, token }, dto));
      }
    } catch (err) {
      if (err instanceof BusinessError) answer = errorEnvelope(lang, err.code, err.messageKey, err.params, err.data);
      else {
        this.logger.error({ err, path: req.url, reqId: req.id }, 'unhandled error');
        answer = errorEnvelope(lang, ErrorCode.INTERNAL, 'error.internal');
      }
    }
    if (res.headersSent || res.destroyed) return;
    const body = JSON.stringify(answer);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }
}

function mediaType(header: string | undefined): string {
  if (!header) return '';
  const semi = header.indexOf(';');
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
}

/** The body as text; a body over the limit or a broken stream is a client error (as body-parser answers). */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BusinessError(ErrorCode.BODY_TOO_LARGE, 'error.body_too_large', { max: formatBytes(limit) }));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => reject(new BusinessError(ErrorCode.VALIDATION, 'error.validation')));
  });
}

/**
 * Form bodies as Express's `urlencoded({ extended: false })` reads them (a repeated key is an array),
 * copied into a plain object; JSON must be an object.
 */
function parseBody(type: string, text: string): object {
  if (type === JSON_TYPE) {
    let value: unknown;
    try {
      value = text ? JSON.parse(text) : {};
    } catch {
      throw new BusinessError(ErrorCode.VALIDATION, 'error.validation');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BusinessError(ErrorCode.VALIDATION, 'error.validation');
    return value;
  }
  return plainCopy(parseForm(text));
}

/**
 * The fields of querystring's null-prototype object in a plain one, as a spread copies them, by a
 * loop: a spread of that object takes V8's slow path, 2–3 µs of the lane's ~0.2 ms per order here
 * (docs/performance.md, thirty-eighth sitting). A `__proto__` field stays a field, as with the
 * spread, never the copy's prototype (the transformer then drops it, as on the Express route).
 */
function plainCopy(form: ParsedUrlQuery): ParsedUrlQuery {
  const body: ParsedUrlQuery = {};
  for (const key of Object.keys(form)) {
    if (key === '__proto__') Object.defineProperty(body, key, { value: form[key], enumerable: true, writable: true, configurable: true });
    else body[key] = form[key];
  }
  return body;
}
