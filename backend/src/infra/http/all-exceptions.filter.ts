import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger, NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { BusinessError } from './business-error';
import { errorEnvelope } from './error-envelope';
import { ErrorCode } from './error-codes';
import { NotLoggedInError } from './not-logged-in.error';
import { requestLang } from './request-context';

/**
 * Every failure becomes the envelope (HTTP 200), except an unknown route, which is a plain
 * HTTP 404: the envelope's code 404 would log clients out (spec §8).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') {
      this.logger.error({ err: exception }, `unhandled ${host.getType()} error`);
      return;
    }
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    if (res.headersSent) return;
    const lang = requestLang(req);

    if (exception instanceof BusinessError) {
      res.status(200).json(errorEnvelope(lang, exception.code, exception.messageKey, exception.params, exception.data));
      return;
    }
    if (exception instanceof NotLoggedInError) {
      res.status(200).json(errorEnvelope(lang, ErrorCode.NOT_LOGGED_IN, 'error.not_logged_in'));
      return;
    }
    if (exception instanceof NotFoundException) {
      res.status(404).json({ statusCode: 404, error: 'Not Found' });
      return;
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      // Malformed requests Nest itself rejects (e.g. a bad multipart boundary): a client error, not ours.
      res.status(200).json(errorEnvelope(lang, ErrorCode.VALIDATION, 'error.validation'));
      return;
    }
    if (isDataException(exception)) {
      // A value the request's checks let through but the database cannot hold or read (an id past
      // its column's range, a timestamp out of range): the request's fault, not ours. Its statement
      // failed, so its transaction wrote nothing; logged for the check that should have caught it.
      this.logger.warn({ err: exception, path: req.url, reqId: req.id }, 'input the database refused');
      res.status(200).json(errorEnvelope(lang, ErrorCode.VALIDATION, 'error.validation'));
      return;
    }
    this.logger.error({ err: exception, path: req.url, reqId: req.id }, 'unhandled error');
    res.status(200).json(errorEnvelope(lang, ErrorCode.INTERNAL, 'error.internal'));
  }
}

/** PostgreSQL's class 22, "data exception" (22003 out of range, 22P02 bad syntax, 22008 datetime overflow, …). */
export function isDataException(e: unknown): boolean {
  return e instanceof QueryFailedError && /^22/.test(String((e.driverError as { code?: unknown } | undefined)?.code ?? ''));
}
