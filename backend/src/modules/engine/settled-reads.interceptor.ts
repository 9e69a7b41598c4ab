import { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { from, Observable, switchMap } from 'rxjs';
import type { AuthContext } from '../../infra/auth/guards';
import { EngineHost } from './engine-host.service';

/**
 * Read-your-writes: a trade-account command is answered once journaled and applied, before the
 * projector writes the read tables. Any later request of the same user (balances, orders,
 * transfers…) first waits until everything of theirs that is journaled is projected — usually
 * nothing is pending and it goes on at once. Registered in app.factory.ts with the others.
 */
export class SettledReadsInterceptor implements NestInterceptor {
  constructor(private readonly host: EngineHost) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const auth = ctx.switchToHttp().getRequest<{ auth?: AuthContext }>().auth;
    const pending = auth?.subjectType === 'user' ? this.host.settledFor(auth.subjectId) : undefined;
    return pending ? from(pending).pipe(switchMap(() => next.handle())) : next.handle();
  }
}
