import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config';
import { handshakeToken, hashToken, TokenService } from './token.service';

/** A valid token's expiry (an hour from now). */
const LATER = Date.now() + 3_600_000;

describe('TokenService.verify', () => {
  function service(rows: () => Array<{ subject_id: number }>) {
    const reads: unknown[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const dataSource = {
      query: async (_sql: string, params: unknown[]) => {
        reads.push(params);
        await gate;
        return rows();
      },
    } as unknown as DataSource;
    return { tokens: new TokenService(dataSource, { tokenCacheMs: 2000 } as AppConfig), reads, release };
  }

  it('requests that miss the cache together share one read, then the cache answers', async () => {
    const { tokens, reads, release } = service(() => [{ subject_id: 7, expires_ms: LATER }]);
    const answers = Promise.all(Array.from({ length: 4 }, () => tokens.verify('a-token-of-enough-length', 'user')));
    release();
    expect(await answers).toEqual([7, 7, 7, 7]);
    expect(reads).toEqual([[hashToken('a-token-of-enough-length'), 'user']]);
    expect(await tokens.verify('a-token-of-enough-length', 'user')).toBe(7);
    expect(reads).toHaveLength(1);
  });

  it('a token of one subject type is looked up on its own for the other, and an unknown token is not cached', async () => {
    const { tokens, reads, release } = service(() => []);
    release();
    const [asUser, asAdmin] = await Promise.all([tokens.verify('another-token-long-enough', 'user'), tokens.verify('another-token-long-enough', 'admin')]);
    expect([asUser, asAdmin]).toEqual([undefined, undefined]);
    expect(reads).toHaveLength(2);
    await tokens.verify('another-token-long-enough', 'user');
    expect(reads).toHaveLength(3);
  });

  it('a lookup begun before a revoke is not joined by later requests and not cached', async () => {
    let revoked = false;
    const reads: string[] = [];
    const gates: Array<() => void> = [];
    const dataSource = {
      query: async (sql: string) => {
        if (sql.startsWith('UPDATE')) {
          revoked = true;
          return [];
        }
        const seen = revoked; // what the row said when the read ran
        reads.push(sql);
        await new Promise<void>((r) => gates.push(r));
        return seen ? [] : [{ subject_id: 7, expires_ms: LATER }];
      },
    } as unknown as DataSource;
    const tokens = new TokenService(dataSource, { tokenCacheMs: 2000 } as AppConfig);
    const token = 'a-token-about-to-be-revoked';
    const before = tokens.verify(token, 'user'); // read in flight, saw the token valid
    await tokens.revoke(token);
    const after = tokens.verify(token, 'user'); // must not share the earlier read
    expect(reads).toHaveLength(2);
    gates.forEach((g) => g());
    expect(await before).toBe(7);
    expect(await after).toBeUndefined();
    const again = tokens.verify(token, 'user'); // nothing was cached: read again
    expect(reads).toHaveLength(3);
    gates.forEach((g) => g());
    expect(await again).toBeUndefined();
  });

  it('revokeAll forgets the cached tokens of the subject at once (regression: they kept working for tokenCacheMs) and tells the listeners', async () => {
    const valid = new Set(['token-one-long-enough-xx', 'token-two-long-enough-xx', 'token-kept-long-enough-x']);
    const hashes = new Map([...valid].map((t) => [hashToken(t), t]));
    let reads = 0;
    const manager = {
      query: async (_sql: string, params: unknown[]) => {
        for (const [h, t] of hashes) if (h !== params[2]) valid.delete(t); // revokes all but the kept one
        return [];
      },
    };
    const dataSource = {
      query: async (_sql: string, params: unknown[]) => {
        reads += 1;
        return valid.has(hashes.get(params[0] as string)!) ? [{ subject_id: 7, expires_ms: LATER }] : [];
      },
    } as unknown as DataSource;
    const tokens = new TokenService(dataSource, { tokenCacheMs: 60_000 } as AppConfig);
    const told: unknown[] = [];
    tokens.onRevoked(async (type, id) => void told.push([type, id]));
    for (const t of ['token-one-long-enough-xx', 'token-two-long-enough-xx', 'token-kept-long-enough-x']) expect(await tokens.verify(t, 'user')).toBe(7);
    expect(reads).toBe(3);
    await tokens.revokeAll('user', 7, 'token-kept-long-enough-x', manager as never);
    expect(told).toEqual([['user', 7]]); // no transaction: told at once
    expect(await tokens.verify('token-one-long-enough-xx', 'user')).toBeUndefined();
    expect(await tokens.verify('token-two-long-enough-xx', 'user')).toBeUndefined();
    expect(await tokens.verify('token-kept-long-enough-x', 'user')).toBe(7); // still cached
    expect(reads).toBe(5);
  });

  it('revokeAll inside a transaction forgets again at the commit what a lookup cached between the UPDATE and the COMMIT, then tells the listeners', async () => {
    let committed = false; // what other sessions read: the old row until the commit
    let reads = 0;
    const subscribers: Array<{ afterTransactionCommit: (e: unknown) => Promise<void> | void }> = [];
    const runner = { isTransactionActive: true, dataSource: { subscribers } };
    const manager = { queryRunner: runner, query: async () => [] };
    const dataSource = {
      query: async () => {
        reads += 1;
        return committed ? [] : [{ subject_id: 7, expires_ms: LATER }];
      },
    } as unknown as DataSource;
    const tokens = new TokenService(dataSource, { tokenCacheMs: 60_000 } as AppConfig);
    const told: boolean[] = [];
    const token = 'a-token-revoked-in-a-transaction';
    // The listener checks the socket's token as the push channel does: it must read it revoked.
    tokens.onRevoked(async () => void told.push((await tokens.verify(token, 'user')) === undefined));
    await tokens.revokeAll('user', 7, undefined, manager as never);
    expect(told).toEqual([]); // not yet committed: nobody told
    expect(await tokens.verify(token, 'user')).toBe(7); // read in the gap: the old row, cached
    committed = true;
    runner.isTransactionActive = false;
    await subscribers[0].afterTransactionCommit({ queryRunner: runner });
    expect(told).toEqual([true]);
    expect(await tokens.verify(token, 'user')).toBeUndefined();
    expect(reads).toBe(3);
  });

  it('session gives the expiry with the subject, and the cache trusts a token no longer than it lives', async () => {
    // The clock is the test's (the service's and the database's): no step races a real deadline.
    let now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      let reads = 0;
      const expiresAt = now + 150;
      const dataSource = {
        query: async () => {
          reads += 1;
          return now < expiresAt ? [{ subject_id: 7, expires_ms: expiresAt }] : [];
        },
      } as unknown as DataSource;
      const tokens = new TokenService(dataSource, { tokenCacheMs: 60_000 } as AppConfig);
      const token = 'a-token-about-to-expire-xx';
      expect(await tokens.session(token, 'user')).toEqual({ subjectId: 7, expiresAt });
      expect(await tokens.session(token, 'admin')).toBeUndefined(); // cached as a user token
      now = expiresAt - 1;
      expect(await tokens.verify(token, 'user')).toBe(7);
      expect(reads).toBe(1);
      now = expiresAt;
      expect(await tokens.verify(token, 'user')).toBeUndefined(); // not the cache's 60 s: read again
      expect(reads).toBe(2);
    } finally {
      clock.mockRestore();
    }
  });

  it('sessions reads every token from the database (never the cache), in batches, and gives the valid ones', async () => {
    const tokenList = Array.from({ length: 1500 }, (_, i) => `batched-token-${String(i).padStart(6, '0')}`);
    const revoked = new Set([hashToken(tokenList[3]), hashToken(tokenList[1200])]);
    const reads: number[] = [];
    const dataSource = {
      query: async (_sql: string, [hashes, type]: [string[], string]) => {
        reads.push(hashes.length);
        return type === 'user' ? hashes.filter((h) => !revoked.has(h)).map((h) => ({ token_hash: h, subject_id: 7, expires_ms: LATER })) : [];
      },
    } as unknown as DataSource;
    const tokens = new TokenService(dataSource, { tokenCacheMs: 60_000 } as AppConfig);
    const valid = await tokens.sessions(tokenList, 'user');
    expect(reads).toEqual([1000, 500]);
    expect(valid.size).toBe(1498);
    expect(valid.get(tokenList[0])).toEqual({ subjectId: 7, expiresAt: LATER });
    expect(valid.has(tokenList[3]) || valid.has(tokenList[1200])).toBe(false);
    expect((await tokens.sessions(tokenList.slice(0, 2), 'admin')).size).toBe(0);
    expect(await tokens.sessions(tokenList.slice(0, 2), 'user')).toEqual(new Map(tokenList.slice(0, 2).map((t) => [t, { subjectId: 7, expiresAt: LATER }])));
    expect(reads).toEqual([1000, 500, 2, 2]);
  });
});

describe('handshakeToken', () => {
  it('reads auth.token, else the Authorization header (with or without Bearer), as tokenFromHeader does', () => {
    const token = 'a-handshake-token-of-length';
    expect(handshakeToken({ auth: { token }, headers: { authorization: 'Bearer another-token-of-length' } })).toBe(token);
    expect(handshakeToken({ auth: {}, headers: { authorization: `Bearer ${token}` } })).toBe(token);
    expect(handshakeToken({ headers: { authorization: token } })).toBe(token);
    expect(handshakeToken({ auth: { token: 'short' }, headers: {} })).toBeUndefined();
    expect(handshakeToken({ auth: { token: 42 }, headers: {} })).toBeUndefined();
  });
});
