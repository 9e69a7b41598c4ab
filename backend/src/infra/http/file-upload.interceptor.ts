import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, RequestHandler, Response } from 'express';
import { Observable } from 'rxjs';
import { fileParser, parserRefusal, takesFiles, UPLOAD_LIMITS } from './body-parsers';
import { ErrorCode } from './error-codes';

/**
 * Reads a multipart body with its file (into `req.files`) on FILE_ROUTES, after the route's guards:
 * a caller with no valid token, or one the route's other guards refuse (`upload/image`: a user over
 * the upload rate limit or daily budget), is answered before a byte of the file is held in memory
 * (the body parsers checked only its declared length). A body over a cap (UPLOAD_LIMITS: a second
 * file too) is code 1004, a broken one 1003.
 */
@Injectable()
export class FileUploadInterceptor implements NestInterceptor {
  private readonly parse: RequestHandler;

  constructor(limitBytes: number) {
    this.parse = fileParser(limitBytes);
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() === 'http') {
      const req = context.switchToHttp().getRequest<Request>();
      const res = context.switchToHttp().getResponse<Response>();
      if (req.is('multipart/form-data') && takesFiles(req)) {
        await new Promise<void>((resolve, reject) =>
          this.parse(req, res, (err?: unknown) =>
            err ? reject(parserRefusal(err, res, ErrorCode.UPLOAD_FAILED, 'error.upload_failed', UPLOAD_LIMITS.fileSize)) : resolve(),
          ),
        );
      }
    }
    return next.handle();
  }
}
