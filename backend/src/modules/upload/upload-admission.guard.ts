import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AuthContext } from '../../infra/auth/guards';
import { NotLoggedInError } from '../../infra/http/not-logged-in.error';
import { UploadService } from './upload.service';

/**
 * `upload/image` after the login check and before FileUploadInterceptor reads the file: the upload is
 * counted against the user's rate limit, and a user over it or over the day's byte budget is answered
 * 1002 without a byte of the file held (the connection closes after the answer, so nothing more of
 * the body is read). Listed after UserAuth's guard, which sets `req.auth`.
 */
@Injectable()
export class UploadAdmissionGuard implements CanActivate {
  constructor(private readonly uploads: UploadService) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const http = ctx.switchToHttp();
    const auth = http.getRequest<Request & { auth?: AuthContext }>().auth;
    if (auth?.subjectType !== 'user') throw new NotLoggedInError();
    try {
      await this.uploads.admit(auth.subjectId);
    } catch (err) {
      http.getResponse<Response>().setHeader('Connection', 'close');
      throw err;
    }
    return true;
  }
}
