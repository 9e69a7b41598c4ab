import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import { Observable } from 'rxjs';
import { BusinessError } from './business-error';
import { ErrorCode } from './error-codes';

/**
 * A route whose handler takes no body (no `@Body()`, no `@Req()`) refuses a body with fields as
 * unknown fields (1001), as a route with a DTO refuses a field its DTO does not name (DESIGN §5).
 * Before, `notice/read_all {"id": 5}` marked every message read and said nothing of the `id`.
 */
@Injectable()
export class NoBodyFieldsInterceptor implements NestInterceptor {
  private readonly readsBody = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const req = context.switchToHttp().getRequest<Request>();
      const body: unknown = req.body;
      if (req.method !== 'GET' && req.method !== 'HEAD' && body !== null && typeof body === 'object') {
        const field = Object.keys(body)[0];
        if (field !== undefined && !this.reads(context)) throw new BusinessError(ErrorCode.UNKNOWN_FIELD, 'error.unknown_field', { field });
      }
    }
    return next.handle();
  }

  /** Whether the handler takes the body or the whole request (its parameters' metadata, once per handler). */
  private reads(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let reads = this.readsBody.get(handler);
    if (reads === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      const types = Object.keys(args).map((key) => Number(key.split(':')[0]));
      reads = types.includes(RouteParamtypes.BODY) || types.includes(RouteParamtypes.REQUEST);
      this.readsBody.set(handler, reads);
    }
    return reads;
  }
}
