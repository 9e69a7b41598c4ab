import { EntityManager } from 'typeorm';

/** Rows of an `UPDATE … RETURNING` (TypeORM answers UPDATE/DELETE on Postgres as `[rows, affectedCount]`). */
export async function updateReturning<T>(m: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const result = await m.query(sql, params);
  return Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number' ? (result[0] as T[]) : (result as T[]);
}

/** A PostgreSQL unique violation (23505), raw or wrapped by TypeORM. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  return (e.driverError?.code ?? e.code) === '23505';
}
