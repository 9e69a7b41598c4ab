import type { LoggerService } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { DestinationStream, Logger as Pino } from 'pino';
import pinoHttp, { HttpLogger, Options } from 'pino-http';
import type { AppConfig } from '../config/config';
import { splitUrl } from '../http/url';

/**
 * The process's logs: one pino logger, and one pino-http request logger on it that every HTTP way
 * in uses (Express's routes and the order lane). JSON lines to stdout, or to the configured stream.
 *
 * No AsyncLocalStorage: a log line made inside a request does not pick up the request by itself
 * (nestjs-pino did that with a store per request, which turned on Node's promise hooks for the
 * whole process: ~7 % of the main thread's CPU per order). What must name its request says so:
 * the access line and the unhandled-error lines carry the request id.
 */
export interface Logging {
  /** The root logger (the Nest logger writes through it). */
  root: Pino;
  /** pino-http: sets `req.id` and `req.log`, echoes `x-request-id`, writes the access line when the request ends. */
  http: HttpLogger;
}

/** Order entry: a line per order at thousands a second would drown the log; the journal is its record. */
const ORDER_ENTRY = new Set(['POST /api/coin/trade', 'PUT /api/coin/trade', 'POST /api/coin/batch_trade']);

/** Whether the request enters orders (its access line is at `debug`, not `info`); paths as Express routes them (any case, a trailing slash). */
export function isOrderEntry(req: Pick<IncomingMessage, 'method' | 'url'>): boolean {
  const path = splitUrl(req.url).path.toLowerCase();
  return ORDER_ENTRY.has(`${req.method} ${path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path}`);
}

/** One id per request, taken from the caller when it sends a usable one, echoed back in `x-request-id`. */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
  res.setHeader('x-request-id', id);
  return id;
}

export function createLogging(config: Pick<AppConfig, 'logLevel' | 'logStream'>): Logging {
  const options: Options = {
    level: config.logLevel,
    genReqId: requestId,
    // Tokens never reach the logs (request bodies, with passwords and codes, are not logged at all).
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', 'res.headers["set-cookie"]'], censor: '[Redacted]' },
    autoLogging: { ignore: (req) => req.url === '/api/health' },
    // Errors and 5xx at error (pino-http alone writes every line at info), order entry's access lines at debug, the rest at info.
    customLogLevel: (req, res, err) => (err || res.statusCode >= 500 ? 'error' : isOrderEntry(req) ? 'debug' : 'info'),
  };
  const http = config.logStream ? pinoHttp(options, config.logStream as DestinationStream) : pinoHttp(options);
  return { root: http.logger, http };
}

/** Nest's logger interface on pino: `Logger.log('text', context)`, `Logger.error({ err, … }, 'text')` and Nest's own `(message, stack, context)`. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly pino: Pino) {}

  verbose(message: unknown, ...params: unknown[]): void {
    this.call('trace', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.call('debug', message, params);
  }
  log(message: unknown, ...params: unknown[]): void {
    this.call('info', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.call('warn', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.call('error', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.call('fatal', message, params);
  }

  private call(level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal', message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    // Nest passes the context (the logger's name) last.
    const fields: Record<string, unknown> = {};
    let rest = params;
    if (params.length) {
      fields.context = params[params.length - 1];
      rest = params.slice(0, -1);
    }
    const log = this.pino[level].bind(this.pino) as (obj: object, msg?: string, ...args: unknown[]) => void;
    if (message instanceof Error) log({ ...fields, err: message }, ...(rest as [string?]));
    else if (typeof message === 'object' && message !== null) log({ ...fields, ...message }, ...(rest as [string?]));
    else if (level === 'error' && typeof message === 'string' && rest.length === 1 && typeof rest[0] === 'string' && /\n\s*at /.test(rest[0])) {
      // Nest's exception handlers call error(message, stack, context).
      const err = new Error(message);
      err.stack = rest[0];
      log({ ...fields, err });
    } else log(fields, String(message), ...rest);
  }
}
