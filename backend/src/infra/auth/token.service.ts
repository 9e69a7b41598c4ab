import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { updateReturning } from '../database/sql';

export type SubjectType = 'user' | 'admin';

/** The tokens `revokeAll` ended: a subject's, all but `keep`. */
interface Revocation {
  subjectType: SubjectType;
  subjectId: number;
  keep?: string;
}

/** A valid token's subject, and when the token expires (ms since the epoch, by the database's clock). */
export interface TokenSession {
  subjectId: number;
  expiresAt: number;
}

/** Told after tokens of a subject were revoked (committed): e.g. the push channel closes the sockets they opened. */
export type RevokedListener = (subjectType: SubjectType, subjectId: number) => Promise<void>;

/** A token row's expiry in ms since the epoch (a JS number). */
const EXPIRES_MS = `(EXTRACT(EPOCH FROM expires_at) * 1000)::float8 AS expires_ms`;
/** Tokens per read of `sessions`. */
const SESSIONS_BATCH = 1000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Opaque bearer tokens: 256 random bits, only their SHA-256 stored, expiring and revocable.
 * The subject type is part of the lookup, so a user token never opens the admin API and back.
 */
@Injectable()
export class TokenService {
  /** Recently verified tokens (process memory only, keyed by the token itself: a hit costs no hash). */
  private readonly cache = new Map<string, { subjectId: number; subjectType: SubjectType; until: number; expiresAt: number }>();
  /** Lookups in flight: requests that miss the cache together (e.g. when an entry expires) share one read. */
  private readonly reading = new Map<string, Promise<TokenSession | undefined>>();
  /** Bumped by every revoke: lookups begun before it neither cache nor get joined. */
  private generation = 0;
  private readonly revokedListeners: RevokedListener[] = [];
  /** Revocations inside a transaction not yet committed: forgotten again and told on its commit, dropped on rollback. */
  private readonly pending = new Map<QueryRunner, Revocation[]>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onRevoked(listener: RevokedListener): void {
    this.revokedListeners.push(listener);
  }

  private async tell(subjectType: SubjectType, subjectId: number): Promise<void> {
    await Promise.all(this.revokedListeners.map((l) => l(subjectType, subjectId).catch(() => undefined)));
  }

  /**
   * This process's cache forgets the subject's tokens (all but `keep`), and lookups begun before
   * now neither cache their answer nor get joined.
   */
  private forget({ subjectType, subjectId, keep }: Revocation): void {
    this.generation++;
    for (const [token, hit] of this.cache) if (hit.subjectType === subjectType && hit.subjectId === subjectId && token !== keep) this.cache.delete(token);
  }

  /**
   * After the revocation is visible to others: now, or when the caller's transaction commits. In a
   * transaction the cache forgets the tokens again at the commit: a lookup between the UPDATE and
   * the COMMIT still read them valid (the row's old version) and may have cached that.
   */
  private async revoked(revocation: Revocation, manager: EntityManager): Promise<void> {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) return this.tell(revocation.subjectType, revocation.subjectId);
    this.hookCommits(runner.dataSource);
    this.pending.set(runner, [...(this.pending.get(runner) ?? []), revocation]);
  }

  /** Once, on the first revocation inside a transaction: a subscriber that tells the listeners when it commits. */
  private hooked = false;
  private hookCommits(dataSource: DataSource): void {
    if (this.hooked) return;
    this.hooked = true;
    dataSource.subscribers.push({
      afterTransactionCommit: ({ queryRunner }: { queryRunner: QueryRunner }) => {
        if (queryRunner.isTransactionActive) return; // a savepoint: the outer transaction has not committed yet
        const done = this.pending.get(queryRunner);
        if (!done) return;
        this.pending.delete(queryRunner);
        // Returned to TypeORM, which awaits it in commitTransaction: the caller's answer comes after the listeners.
        for (const r of done) this.forget(r);
        return Promise.all(done.map((r) => this.tell(r.subjectType, r.subjectId))).then(() => undefined);
      },
      afterTransactionRollback: ({ queryRunner }: { queryRunner: QueryRunner }) => {
        if (!queryRunner.isTransactionActive) this.pending.delete(queryRunner);
      },
    });
  }

  async issue(subjectType: SubjectType, subjectId: number, ttlSeconds: number, manager: EntityManager = this.dataSource.manager): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await manager.query(`INSERT INTO auth_tokens (token_hash, subject_type, subject_id, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`, [
      hashToken(token),
      subjectType,
      subjectId,
      ttlSeconds,
    ]);
    return token;
  }

  /** The subject id when the token is valid for that subject type, else undefined. */
  async verify(token: string, subjectType: SubjectType): Promise<number | undefined> {
    const hit = this.cache.get(token);
    if (hit && hit.until > Date.now()) return hit.subjectType === subjectType ? hit.subjectId : undefined;
    return (await this.read(token, subjectType))?.subjectId;
  }

  /**
   * As `verify`, with the token's expiry: for a holder that outlives a request and must act on it
   * (a socket leaves the private rooms when its token expires).
   */
  async session(token: string, subjectType: SubjectType): Promise<TokenSession | undefined> {
    const hit = this.cache.get(token);
    if (hit && hit.until > Date.now()) return hit.subjectType === subjectType ? { subjectId: hit.subjectId, expiresAt: hit.expiresAt } : undefined;
    return this.read(token, subjectType);
  }

  /** A cache miss: one lookup, shared by the requests that miss together. */
  private read(token: string, subjectType: SubjectType): Promise<TokenSession | undefined> {
    const hash = hashToken(token);
    const generation = this.generation;
    const key = `${generation}:${subjectType}:${hash}`;
    let read = this.reading.get(key);
    if (!read) {
      read = this.lookup(token, hash, subjectType, generation).finally(() => this.reading.delete(key));
      this.reading.set(key, read);
    }
    return read;
  }

  private async lookup(token: string, hash: string, subjectType: SubjectType, generation: number): Promise<TokenSession | undefined> {
    const rows: Array<{ subject_id: number; expires_ms: number }> = await this.dataSource.query(
      `SELECT subject_id, ${EXPIRES_MS} FROM auth_tokens WHERE token_hash = $1 AND subject_type = $2 AND revoked_at IS NULL AND expires_at > now()`,
      [hash, subjectType],
    );
    if (!rows.length) return undefined;
    const session: TokenSession = { subjectId: rows[0].subject_id, expiresAt: rows[0].expires_ms };
    if (generation === this.generation) {
      if (this.cache.size > 50_000) this.cache.clear();
      // Trusted no longer than the token lives.
      this.cache.set(token, { ...session, subjectType, until: Math.min(Date.now() + this.config.tokenCacheMs, session.expiresAt) });
    }
    return session;
  }

  /**
   * Which of these tokens are valid for the subject type now, read from the database in batches and
   * never from the cache: for a periodic check of long-lived holders (the push channel's sockets),
   * which must not trust a cache that another process's revocation has not reached.
   */
  async sessions(tokens: readonly string[], subjectType: SubjectType): Promise<Map<string, TokenSession>> {
    const valid = new Map<string, TokenSession>();
    for (let i = 0; i < tokens.length; i += SESSIONS_BATCH) {
      const batch = tokens.slice(i, i + SESSIONS_BATCH);
      const hashes = batch.map(hashToken);
      const rows: Array<{ token_hash: string; subject_id: number; expires_ms: number }> = await this.dataSource.query(
        `SELECT token_hash, subject_id, ${EXPIRES_MS} FROM auth_tokens WHERE token_hash = ANY($1) AND subject_type = $2 AND revoked_at IS NULL AND expires_at > now()`,
        [hashes, subjectType],
      );
      const byHash = new Map(rows.map((r) => [r.token_hash, r]));
      batch.forEach((token, j) => {
        const row = byHash.get(hashes[j]);
        if (row) valid.set(token, { subjectId: row.subject_id, expiresAt: row.expires_ms });
      });
    }
    return valid;
  }

  async revoke(token: string): Promise<void> {
    const rows = await updateReturning<{ subject_type: SubjectType; subject_id: number }>(
      this.dataSource,
      'UPDATE auth_tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL RETURNING subject_type, subject_id',
      [hashToken(token)],
    );
    this.generation++;
    this.cache.delete(token);
    for (const r of rows) await this.tell(r.subject_type, r.subject_id);
  }

  /** Whether this token is open (not revoked, not expired) in `manager`'s transaction, its row held until it ends (a revocation then waits for it). */
  async openIn(manager: EntityManager, token: string): Promise<boolean> {
    const rows: unknown[] = await manager.query('SELECT 1 FROM auth_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > now() FOR SHARE', [
      hashToken(token),
    ]);
    return rows.length > 0;
  }

  /** Revoke every session of a subject, optionally keeping the one in use. */
  async revokeAll(subjectType: SubjectType, subjectId: number, keep?: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
      `UPDATE auth_tokens SET revoked_at = now() WHERE subject_type = $1 AND subject_id = $2 AND revoked_at IS NULL AND ($3::text IS NULL OR token_hash <> $3)`,
      [subjectType, subjectId, keep ? hashToken(keep) : null],
    );
    // This process's cache forgets them at once (as revoke() does); other processes within tokenCacheMs.
    const revocation: Revocation = { subjectType, subjectId, keep };
    this.forget(revocation);
    await this.revoked(revocation, manager);
  }
}

/** The token from `Authorization: <token>` or `Authorization: Bearer <token>`. */
export function tokenFromHeader(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const token = header.replace(/^Bearer\s+/i, '').trim();
  return token.length >= 16 && token.length <= 200 ? token : undefined;
}

/** What `handshakeToken` reads of a Socket.IO connection's opening (its `handshake`). */
export interface TokenHandshake {
  auth?: { token?: unknown };
  headers: { authorization?: unknown };
}

/** A Socket.IO handshake's token: `auth.token`, else the `Authorization` header (as `tokenFromHeader`). */
export function handshakeToken(handshake: TokenHandshake): string | undefined {
  return tokenFromHeader(handshake.auth?.token ?? handshake.headers.authorization);
}
