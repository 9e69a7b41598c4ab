import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/infra/database/data-source';
import { NotSentError, OwnConnection } from '../src/infra/database/own-connection';
import { migrate } from '../src/infra/database/migrate';
import { BusinessError } from '../src/infra/http/business-error';
import { ErrorCode } from '../src/infra/http/error-codes';
import { EngineLease, FencedError } from '../src/modules/engine/engine-lease';
import { EngineLink, EngineReply, EngineRequest } from '../src/modules/engine/engine-link';
import { JournalWriter } from '../src/modules/engine/journal-writer';
import type { SeqOutcome } from '../src/modules/engine/sequencer/commands';
import { loadConfig } from '../src/infra/config/config';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { registerByEmail } from './support/accounts';
import { spotTrader } from './support/funding';
import { inOpenTransaction } from './support/open-transaction';
import { MarkPriceService } from '../src/modules/market/mark-price.service';
import { depositCommand } from './support/sequencer-commands';
import { createDatabase, REDIS_URL, startTestApp } from './support/test-app';

/**
 * The sequencer's lease and fencing token ("Scale beyond one process"), and the Redis Streams
 * command transport, on real PostgreSQL and Redis. The multi-process take-over is `npm run test:scale`.
 */
describe('engine lease with a fencing token', () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let ds: DataSource;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** Leases, journal writers and connections each have a connection of their own: closed after the tests. */
  const closing: Array<{ close(): Promise<void> }> = [];
  const owned = <T extends { close(): Promise<void> }>(x: T): T => (closing.push(x), x);
  const lease = (ttlMs: number) => owned(new EngineLease(ds, ttlMs));
  const journalWriter = () => owned(new JournalWriter(ds));

  beforeAll(async () => {
    db = await createDatabase();
    ds = new DataSource({ ...dataSourceOptions(db.url), logging: false });
    await ds.initialize();
    await migrate(ds);
  });

  afterAll(async () => {
    for (const c of closing) await c.close();
    await ds.destroy();
    await db.drop();
  });

  it('one holder at a time; a standby takes it only after the expiry, with a higher token', async () => {
    const a = lease(600);
    const b = lease(600);
    const ta = await a.tryAcquire();
    expect(ta).toBeDefined();
    expect(await b.tryAcquire()).toBeUndefined();
    expect(await a.renew()).toBe(true);
    await sleep(700); // a stops renewing (paused)
    const tb = await b.tryAcquire();
    expect(tb).toBe(ta! + 1);
    expect(await a.renew()).toBe(false); // a learns it lost the lease
    expect(a.current).toBeUndefined();
    await b.release();
    const c = lease(600);
    expect(await c.tryAcquire()).toBe(tb! + 1); // released: no wait for the expiry
    await c.release();
  });

  it('a journal write with an old token is refused, and the new holder writes after it', async () => {
    const journal = journalWriter();
    const old = lease(400);
    const oldToken = (await old.tryAcquire())!;
    const head = await journal.head();
    await journal.append({ seq: head + 1, ts: Date.now(), commands: [] }, oldToken);
    await sleep(500);
    const next = lease(5000);
    const newToken = (await next.tryAcquire())!;
    expect(newToken).toBeGreaterThan(oldToken);
    // The paused holder wakes up and tries to write its next batch: fenced, nothing written.
    await expect(journal.append({ seq: head + 2, ts: Date.now(), commands: [] }, oldToken)).rejects.toBeInstanceOf(FencedError);
    await journal.append({ seq: head + 2, ts: Date.now(), commands: [] }, newToken);
    const rows: Array<{ seq: string; token: string }> = await ds.query('SELECT seq, token FROM sequencer_journal WHERE seq > $1 ORDER BY seq', [head]);
    expect(rows.map((r) => [Number(r.seq), Number(r.token)])).toEqual([
      [head + 1, oldToken],
      [head + 2, newToken],
    ]);
    await next.release();
  });

  it('a take-over waits for a journal write in flight (share lock), and fences every write after it', async () => {
    const journal = journalWriter();
    const holder = lease(300);
    const token = (await holder.tryAcquire())!;
    const head = await journal.head();
    // A write in flight: its transaction holds the share lock on the lease row while the lease expires.
    const qr = ds.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    await qr.query(
      `INSERT INTO sequencer_journal (seq, ts, commands_text, token) SELECT $1, $2, '[]', token FROM engine_lease WHERE name = 'engine' AND token = $3 FOR SHARE`,
      [head + 1, Date.now(), token],
    );
    await sleep(400);
    const standby = lease(5000);
    let taken: number | undefined;
    const takeover = standby.tryAcquire().then((t) => (taken = t));
    await sleep(200);
    expect(taken).toBeUndefined(); // waiting for the write in flight
    await qr.commitTransaction();
    await qr.release();
    await takeover;
    expect(taken).toBe(token + 1);
    await expect(journal.append({ seq: head + 2, ts: Date.now(), commands: [] }, token)).rejects.toBeInstanceOf(FencedError);
    expect(await journal.head()).toBe(head + 1);
    await standby.release();
  });

  describe('a connection of its own (OwnConnection)', () => {
    it('opens again after the server ended it, cancels a statement past its bound, and refuses once closed', async () => {
      const own = owned(new OwnConnection(ds, { applicationName: 'kestrel-own-test', connectMs: 5000, statementMs: 300 }));
      const one = async () => (await own.query<{ n: number }>('SELECT 1 AS n', [])).rows[0].n;
      expect(await one()).toBe(1);
      await ds.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kestrel-own-test'`);
      await new Promise((r) => setTimeout(r, 200));
      expect(await one()).toBe(1);
      // Cancelled by the server (statement_timeout), not only given up here: the connection is replaced.
      await expect(own.query('SELECT pg_sleep(3)', [])).rejects.toThrow(/statement timeout/);
      expect(await one()).toBe(1);
      const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'kestrel-own-test'`);
      expect(n).toBe(1);
      await own.close();
      await expect(one()).rejects.toBeInstanceOf(NotSentError);
    });

    it('a database out of reach: the statement was not sent (NotSentError)', async () => {
      const nowhere = { options: { url: 'postgres://postgres@127.0.0.1:1/none' } } as unknown as DataSource;
      const own = new OwnConnection(nowhere, { applicationName: 'kestrel-own-test', connectMs: 1000 });
      await expect(own.query('SELECT 1', [])).rejects.toBeInstanceOf(NotSentError);
      await own.close();
    });
  });
});

describe('the lease and the journal keep connections of their own', () => {
  it('requests holding every pooled connection past the lease neither make the sequencer step down nor hold its answers', async () => {
    const t = await startTestApp({ engine: { ...loadConfig().engine, leaseMs: 600 } });
    try {
      const host = t.app.get(EngineHost);
      const u = await registerByEmail(t);
      const token = async () => Number((await t.ds.query(`SELECT token FROM engine_lease WHERE name = 'engine'`))[0].token);
      const before = await token();
      expect((await host.submit(depositCommand(u.user.id, 3, '1', 'pool-1'))).code).toBe('OK');
      await host.idle(); // projected: nothing holds the next journal write for the projector
      // Every pooled connection busy for 4 s: a statement through the pool waits that long, over six leases.
      const size = (t.ds.driver.options as { extra: { max: number } }).extra.max;
      const busy = Promise.all(Array.from({ length: size }, () => t.ds.query('SELECT pg_sleep(4)')));
      busy.catch(() => undefined); // awaited below unless an expectation before it failed
      await new Promise((r) => setTimeout(r, 1000));
      // Submitted while the pool is full: journaled and answered long before the pool frees, under the same lease.
      const during = host.submit(depositCommand(u.user.id, 3, '1', 'pool-2'));
      const held = new Promise((r) => setTimeout(() => r('held for the pool'), 1500));
      expect(await Promise.race([during.then((o) => o.code), held])).toBe('OK');
      await busy;
      expect(await token()).toBe(before);
      expect(host.owner).toBe(true);
    } finally {
      await t.close();
    }
  }, 30_000);
});

describe('mark prices under the lease', () => {
  it('an engine that lost its lease (paused past it, another took over) records no mark price from its books (regression: its sampler wrote stale ticks between the new engine’s)', async () => {
    process.env.MARK_PRICE = 'off';
    const t = await startTestApp();
    try {
      const trade = (token: string, side: 'buy' | 'sell') =>
        t
          .http()
          .post('/api/coin/trade')
          .set('Authorization', token)
          .type('form')
          .send({ symbol: 'BTC/USDT', side, type: 'limit', price: '61000', quantity: '0.001' });
      const seller = await spotTrader(t, 1, '1');
      const buyer = await spotTrader(t, 3, '1000');
      expect((await trade(seller.token, 'sell')).body.code).toBe(1);
      expect((await trade(buyer.token, 'buy')).body.data.status).toBe('completed');
      const marks = t.app.get(MarkPriceService);
      const count = async () => Number((await t.ds.query(`SELECT COUNT(*) AS n FROM mark_prices WHERE market_id = 1`))[0].n);
      expect((await marks.sample()).map((k) => k.price)).toContain('61000');
      const before = await count();
      // Another engine takes the lease (a higher token) while this one has not noticed yet.
      await t.ds.query(`UPDATE engine_lease SET token = token + 1, holder = 'another engine' WHERE name = 'engine'`);
      await expect(marks.sample()).rejects.toThrow(/no longer holds the engine's lease/);
      expect(await count()).toBe(before);
    } finally {
      delete process.env.MARK_PRICE;
      await t.close();
    }
  }, 30_000);
});

describe('a rebuild catching up', () => {
  it('while the projection catches up with a rebuild, the host is the owner but not settled: the relay and the sweeps that look at projected results wait (regression: they resent commands the journal held)', async () => {
    const t = await startTestApp();
    try {
      const host = t.app.get(EngineHost);
      const u = await registerByEmail(t);
      await host.idle();
      // A batch journaled and never projected (a crash between the two).
      await t.ds.query('INSERT INTO sequencer_journal (seq, ts, commands) VALUES ($1, $2, $3)', [
        host.positions.journaled + 1,
        Date.now(),
        JSON.stringify([{ t: 'cancel', userId: u.user.id, orderId: 999_999 }]),
      ]);
      await inOpenTransaction(t.ds, async (other) => {
        // The projection cannot commit yet: another session holds its watermark row.
        await other.query('SELECT seq FROM sequencer_projection WHERE id = 1 FOR UPDATE');
        const rebuilt = host.recover();
        await new Promise((r) => setTimeout(r, 500));
        expect(host.owner).toBe(true);
        expect(host.settled).toBe(false);
        await other.commitTransaction();
        await rebuilt;
      });
      expect(host.settled).toBe(true);
    } finally {
      await t.close();
    }
  }, 30_000);
});

describe('the command transport (Redis Streams)', () => {
  const prefix = `test:link:${randomBytes(4).toString('hex')}:`;
  const outcome = (n: number): SeqOutcome => ({ code: 'OK', orderId: n, orders: [], trades: [], postings: [], users: [n], books: [] });

  it('answers through the asking process stream; a request the engine left unanswered is run by the next one, once', async () => {
    const api = new EngineLink(REDIS_URL, prefix, 'api-1');
    const engineA = new EngineLink(REDIS_URL, prefix, 'engine-a');
    const seen: string[] = [];
    // Engine A answers the first request, then "dies" before answering the second.
    let calls = 0;
    const never = new Promise<EngineReply>(() => undefined);
    engineA.serve('engine-a', (req: EngineRequest) => {
      seen.push(`a:${req.id}`);
      return ++calls === 1 ? Promise.resolve({ id: req.id, seq: 7, outcome: outcome(1) }) : never;
    });
    await new Promise((r) => setTimeout(r, 200));
    const first = await api.ask({ cmd: { t: 'cancel', userId: 1, orderId: 1 } }, 3000);
    expect(first).toMatchObject({ seq: 7, outcome: { orderId: 1, users: [1] } });
    const sentAt = Date.now();
    const second = api.ask({ cmd: { t: 'place', userId: 2, marketId: 1, side: 'buy', type: 'limit', price: 1, qty: 1, quoteBudget: 0 } }, 5000);
    await new Promise((r) => setTimeout(r, 300));
    await engineA.close();
    // Engine B takes over: it claims the pending request and answers it.
    const engineB = new EngineLink(REDIS_URL, prefix, 'engine-b');
    engineB.serve('engine-b', (req: EngineRequest) => {
      seen.push(`b:${req.id}`);
      // The place without a client id carries its request id: the sequencer's idempotency key; and a
      // lifetime within the asker's timeout (5 s), less what it waited in the stream (~300 ms, on
      // Redis's clock), which the engine makes its deadline: not placed once the asker answered 2107.
      expect(req.cmd).toMatchObject({ t: 'place', requestId: req.id });
      expect(req.ttlMs).toBe(4000);
      expect(req.waitedMs).toBeGreaterThanOrEqual(250);
      expect(req.waitedMs).toBeLessThanOrEqual(Date.now() - sentAt + 5);
      return Promise.resolve({ id: req.id, seq: 8, outcome: outcome(2) });
    });
    expect(await second).toMatchObject({ seq: 8, outcome: { orderId: 2 } });
    expect(seen.filter((s) => s.startsWith('b:'))).toHaveLength(1);
    await engineB.close();
    await api.close();
  });

  it('a request whose batch was of unknown fate when its engine stopped serving is left pending, and the next engine answers it (regression: answered 2107)', async () => {
    const api = new EngineLink(REDIS_URL, `${prefix}unknown:`, 'api-3');
    const engineA = new EngineLink(REDIS_URL, `${prefix}unknown:`, 'engine-a');
    let fail!: () => void;
    const failing = new Promise<void>((r) => (fail = r));
    // Engine A's journal write fails (fate unknown) as it steps down.
    engineA.serve('engine-a', async () => {
      await failing;
      throw new BusinessError(ErrorCode.ENGINE_UNKNOWN);
    });
    await new Promise((r) => setTimeout(r, 200));
    const asked = api.ask({ cmd: { t: 'cancel', userId: 3, orderId: 3 } }, 5000);
    await new Promise((r) => setTimeout(r, 300));
    const stopping = engineA.stopServing();
    fail();
    await stopping;
    // Engine B, which replayed the journal, answers it from its idempotency window.
    const engineB = new EngineLink(REDIS_URL, `${prefix}unknown:`, 'engine-b');
    try {
      engineB.serve('engine-b', (req: EngineRequest) => Promise.resolve({ id: req.id, seq: 9, outcome: outcome(3) }));
      expect(await asked).toMatchObject({ seq: 9, outcome: { orderId: 3 } });
    } finally {
      for (const link of [engineB, engineA, api]) await link.close();
    }
  });

  it('no engine: the caller hears 2107 (result unknown) after its timeout', async () => {
    const api = new EngineLink(REDIS_URL, `${prefix}none:`, 'api-2');
    await expect(api.ask({ cmd: { t: 'cancel', userId: 1, orderId: 1 } }, 300)).rejects.toMatchObject({ code: 2107 });
    await api.close();
  });
});
