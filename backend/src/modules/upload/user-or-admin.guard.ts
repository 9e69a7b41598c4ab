import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AuthContext } from '../../infra/auth/guards';
import { TokenService, tokenFromHeader } from '../../infra/auth/token.service';
import { NotLoggedInError } from '../../infra/http/not-logged-in.error';

/** A user token or an operator token (reading an image: its owner, or an operator reviewing it). */
@Injectable()
export class UserOrAdminGuard implements CanActivate {
  constructor(private readonly tokens: TokenService) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request & { auth?: AuthContext }>();
    const token = tokenFromHeader(req.headers.authorization);
    if (token) {
      for (const subjectType of ['user', 'admin'] as const) {
        const subjectId = await this.tokens.verify(token, subjectType);
        if (subjectId !== undefined) {
          req.auth = { subjectType, subjectId, token };
          return true;
        }
      }
    }
    throw new NotLoggedInError();
  }
}
