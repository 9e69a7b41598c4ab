import { EntityManager, FindOptionsOrder, FindOptionsWhere, Not, Repository } from 'typeorm';
import { updateReturning } from '../../infra/database/sql';
import { alreadyDecided, BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import type { Page } from '../../infra/http/page.dto';
import type { OutboxRelay } from '../engine/outbox-relay.service';
import type { Deposit } from './deposit.entity';
import type { AdminRecordQueryDto, RecordQueryDto } from './dto/funding.dto';
import type { Withdrawal } from './withdrawal.entity';

type Reviewed = Deposit | Withdrawal;

/**
 * Deposits and withdrawals share their review: only a record still in `review` can be decided,
 * once — the conditional update is the guard, so two operators deciding at once take effect once.
 */
export async function decide<T extends Reviewed>(
  m: EntityManager,
  table: 'deposits' | 'withdrawals',
  repo: Repository<T>,
  id: number,
  change: { status: 'passed' | 'rejected'; adminId: number; reason: string | null; txHash?: string | null },
): Promise<T> {
  const txHash = table === 'withdrawals' ? ', tx_hash = $5' : '';
  const params = [id, change.status, change.reason, change.adminId, ...(table === 'withdrawals' ? [change.txHash ?? null] : [])];
  const rows = await updateReturning(
    m,
    `UPDATE ${table} SET status = $2, reason = $3, reviewed_by = $4, reviewed_at = now()${txHash} WHERE id = $1 AND status = 'review' RETURNING id`,
    params,
  );
  const record = await m.withRepository(repo).findOneBy({ id } as FindOptionsWhere<T>);
  // A withdrawal still `submitting` (its freeze on the way) is nobody's to decide yet, and not listed: not found.
  if (!record || record.status === 'submitting') throw new BusinessError(ErrorCode.RECORD_NOT_FOUND);
  if (!rows.length) throw alreadyDecided(ErrorCode.ALREADY_DECIDED, record);
  return record;
}

/** A user's own records (`userId`), or the operator's view filtered by `user_id`; newest first. */
export async function records<T extends Reviewed, V>(
  repo: Repository<T>,
  q: RecordQueryDto | AdminRecordQueryDto,
  userId: number | undefined,
  view: (r: T) => V,
): Promise<Page<V>> {
  const where: Record<string, unknown> = {};
  const owner = userId ?? ('user_id' in q ? q.user_id : undefined);
  if (owner !== undefined) where.userId = owner;
  // A withdrawal still `submitting` (its freeze on the way) is nobody's to see or decide yet.
  where.status = q.status ?? Not('submitting');
  if (q.id !== undefined) where.id = q.id;
  const [rows, total] = await repo.findAndCount({ where: where as FindOptionsWhere<T>, order: { id: 'DESC' } as FindOptionsOrder<T>, skip: (q.page - 1) * q.limit, take: q.limit });
  return { items: rows.map(view), total, page: q.page, limit: q.limit };
}

/**
 * A decision that found its record decided (2209): when it is the same decision again (its command
 * is in the outbox: a retry after 2107, a second click), 2107 while that command is still on its way.
 */
export async function decidedBefore(outbox: OutboxRelay, commandId: string, err: unknown): Promise<never> {
  if (err instanceof BusinessError && err.code === ErrorCode.ALREADY_DECIDED && (await outbox.holds(commandId))) await outbox.appliedOrFail(commandId);
  throw err;
}
