import { applyDecorators, CanActivate, createParamDecorator, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import { NotLoggedInError } from '../http/not-logged-in.error';
import { SubjectType, TokenService, tokenFromHeader } from './token.service';

export interface AuthContext {
  subjectType: SubjectType;
  subjectId: number;
  token: string;
}

type AuthedRequest = Request & { auth?: AuthContext };

// Decorated so its constructor's parameter types are emitted and inherited by the guards below.
@Injectable()
abstract class TokenGuard implements CanActivate {
  protected abstract readonly subjectType: SubjectType;
  protected readonly optional: boolean = false;
  constructor(private readonly tokens: TokenService) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const token = tokenFromHeader(req.headers.authorization);
    const subjectId = token ? await this.tokens.verify(token, this.subjectType) : undefined;
    if (token && subjectId !== undefined) {
      req.auth = { subjectType: this.subjectType, subjectId, token };
      return true;
    }
    if (this.optional) return true;
    throw new NotLoggedInError();
  }
}

@Injectable()
export class UserAuthGuard extends TokenGuard {
  protected readonly subjectType = 'user';
}

/** Visitors pass; a valid user token is attached when present. */
@Injectable()
export class OptionalUserGuard extends TokenGuard {
  protected readonly subjectType = 'user';
  protected override readonly optional = true;
}

@Injectable()
export class AdminAuthGuard extends TokenGuard {
  protected readonly subjectType = 'admin';
}

const tokenHeader = ApiHeader({ name: 'Authorization', description: 'The token from login', required: true });
/** The route needs a logged-in user (answers code 401 otherwise). */
export const UserAuth = () => applyDecorators(UseGuards(UserAuthGuard), tokenHeader);
/** The route needs an operator token from /api/admin/login. */
export const AdminAuth = () => applyDecorators(UseGuards(AdminAuthGuard), tokenHeader);
export const OptionalUserAuth = () => UseGuards(OptionalUserGuard);

/** The authenticated caller (set by the guards above). */
export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext | undefined => ctx.switchToHttp().getRequest<AuthedRequest>().auth);
