import { EntityManager } from 'typeorm';

/** Rows of an `UPDATE … RETURNING` (TypeORM answers UPDATE/DELETE on Postgres as `[rows, affectedCount]`). */
export async function updateReturning<T>(m: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const result = await m.query(sql, params);
  return Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number' ? (result[0] as T[]) : (result as T[]);
}

const sqlState = (err: unknown) => {
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  return e.driverError?.code ?? e.code;
};

/** A PostgreSQL unique violation (23505), raw or wrapped by TypeORM. */
export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === '23505';
}

/** A PostgreSQL check violation (23514), raw or wrapped by TypeORM. */
export function isCheckViolation(err: unknown): boolean {
  return sqlState(err) === '23514';
}
