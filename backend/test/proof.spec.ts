import { formatUnits, type LiabilityProof, type ProofRoot, verifyProof } from '@kestrel/contracts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { units } from '../src/infra/money';
import { EngineHost } from '../src/modules/engine/engine-host.service';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { ProofJobsService } from '../src/modules/proof/proof-jobs.service';
import { ProofService } from '../src/modules/proof/proof.service';
import { adminToken, registerByEmail, setFundPassword } from './support/accounts';
import { deposit } from './support/funding';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const USDT = 3;
const BTC = 1;
/** The standalone verifier, as `npx kestrel-verify-proof` runs it (the contracts package's bin, no server code). */
const VERIFIER = join(__dirname, '../../contracts/bin/kestrel-verify-proof.js');
const verifier = (...args: string[]) => spawnSync(process.execPath, [VERIFIER, ...args], { encoding: 'utf8', timeout: 60_000 });

/**
 * Proof of liabilities (issue "Verifiable honesty", item 1) on real PostgreSQL and Redis: users with
 * deposits, a spot trade, an order resting (frozen funds) and a transfer to the contract account;
 * the operator builds a root; every user's proof verifies (in process and with the standalone
 * verifier on the downloaded file); the totals are the trial balance's user liabilities.
 */
describe('proof of liabilities (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let op: string;
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-proof-spec-'));
  type User = Awaited<ReturnType<typeof registerByEmail>>;
  const users: User[] = [];
  let built: ProofRoot;

  beforeAll(async () => {
    t = await startTestApp();
    op = await adminToken(t, ADMIN.email, ADMIN.password);
  });
  afterAll(() => t.close());

  const get = (path: string, token?: string) => {
    const r = t.http().get(`/api/${path}`);
    return token ? r.set('Authorization', token) : r;
  };
  const build = (reason?: string, token = op) =>
    t
      .http()
      .post('/api/admin/proof/build')
      .set('Authorization', token)
      .type('form')
      .send(reason ? { reason } : {});
  const order = (token: string, body: Record<string, string>) =>
    t
      .http()
      .post('/api/coin/trade')
      .set('Authorization', token)
      .type('form')
      .send({ symbol: 'BTC/USDT', ...body });
  /** Every user's balances (all accounts, available + frozen) per currency, in units, straight from the books. */
  const booked = async (userId: number) => {
    const rows: Array<{ currency_id: number; total: string }> = await t.ds.query(
      `SELECT currency_id, SUM(available + frozen)::text AS total FROM balances WHERE owner_type = 'user' AND owner_id = $1 GROUP BY currency_id`,
      [userId],
    );
    return new Map(rows.map((r) => [Number(r.currency_id), units(r.total)]));
  };

  it('the start-up job publishes nothing while there is no user; before any root, a proof is code 3201', async () => {
    // The start-up job was queued when the app started (this process runs workers): let it finish.
    const queue = t.app.get(ProofJobsService).queue!;
    expect(queue).toBeDefined();
    for (let i = 0; i < 100; i++) {
      // (The daily scheduler keeps its next run as a delayed job.)
      const c = await queue.getJobCounts('waiting', 'active', 'prioritized', 'completed');
      if (c.waiting + c.active + c.prioritized === 0 && c.completed > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await queue.getJobSchedulers()).map((s) => ({ id: s.key, pattern: s.pattern, tz: s.tz }))).toEqual([{ id: 'daily', pattern: '0 0 * * *', tz: 'UTC' }]);
    expect((await get('proof/roots')).body).toMatchObject({ code: 1, data: { items: [], total: 0 } });

    const u = await registerByEmail(t);
    expect((await get('proof/mine', u.token)).body).toMatchObject({ code: 3201 });
    users.push(u);
  });

  it('visitors get no proof; a user token cannot build a root', async () => {
    expect((await get('proof/mine')).body.code).toBe(401);
    expect((await get('proof/mine?download=1')).body.code).toBe(401);
    expect((await build('try', users[0].token)).body.code).toBe(401);
    expect((await t.http().post('/api/admin/proof/build').type('form').send({})).body.code).toBe(401);
  });

  it('the operator builds a root over deposits, a trade, frozen funds and a contract-account transfer: every proof verifies', async () => {
    const seller = users[0];
    const buyer = await registerByEmail(t);
    const lever = await registerByEmail(t);
    const idle = await registerByEmail(t); // no balance at all: still a leaf (all zeros)
    users.push(buyer, lever, idle);
    await setFundPassword(t, seller);
    await setFundPassword(t, buyer);
    await deposit(t, seller.user.id, BTC, '1.23456789');
    await deposit(t, buyer.user.id, USDT, '50000.000000000000000001');
    await deposit(t, lever.user.id, USDT, '777.5');
    expect((await order(seller.token, { side: 'sell', type: 'limit', price: '60000', quantity: '0.5' })).body.code).toBe(1);
    expect((await order(buyer.token, { side: 'buy', type: 'limit', price: '60000', quantity: '0.5' })).body.code).toBe(1);
    // A resting order: part of the buyer's USDT is frozen, and still owed.
    expect((await order(buyer.token, { side: 'buy', type: 'limit', price: '100', quantity: '2' })).body.code).toBe(1);
    const moved = await t
      .http()
      .post('/api/wallet/change')
      .set('Authorization', lever.token)
      .type('form')
      .send({ from: 'coin', to: 'lever', currency_id: USDT, amount: '700.25' });
    expect(moved.body.code).toBe(1);
    for (const u of users) await t.app.get(EngineHost).settledFor(u.user.id);

    const started = Date.now();
    const res = await build('monthly attestation');
    expect(res.body).toMatchObject({ code: 1, message: 'Proof of liabilities published' });
    built = res.body.data;
    expect(built.root).toMatch(/^[0-9a-f]{64}$/);
    expect(built.currencies).toEqual([...built.currencies].sort((a, b) => a - b));
    expect(built.currencies).toEqual(expect.arrayContaining([BTC, USDT]));
    expect(built.totals).toHaveLength(built.currencies.length);
    expect(Date.now() - started).toBeLessThan(10_000);

    for (const u of users) {
      const mine = await get('proof/mine', u.token);
      expect(mine.body.code).toBe(1);
      expect(mine.headers['cache-control']).toContain('no-store');
      const proof: LiabilityProof = mine.body.data;
      expect(proof.root).toBe(built.root);
      expect(proof.currencies).toEqual(built.currencies);
      expect(proof.salt).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyProof(proof)).toMatchObject({ ok: true, root: built.root });
      // Their leaf holds exactly their books: every account, available + frozen.
      const books = await booked(u.user.id);
      expect(proof.balances).toEqual(built.currencies.map((c) => String(books.get(c) ?? 0n)));
      // The path climbs to the root: 4 leaves → 2 steps.
      expect(proof.path).toHaveLength(2);
    }
    const [buyer0] = [await get('proof/mine', buyer.token)];
    expect(buyer0.body.data.balances[built.currencies.indexOf(USDT)]).toBe(String(units('20000.000000000000000001')));
    // Salts are per user and stay the same from root to root.
    const salts = await Promise.all(users.map(async (u) => (await get('proof/mine', u.token)).body.data.salt as string));
    expect(new Set(salts).size).toBe(users.length);
  });

  it('the totals are the trial balance’s user liabilities at the watermark', async () => {
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.ok).toBe(true);
    const now = await t.app.get(ProofService).watermark();
    expect(built.watermark).toEqual({ seq: now.seq, ledgerEntryId: now.ledgerEntryId });
    expect(Number(built.watermark.ledgerEntryId)).toBeGreaterThan(0);
    for (const c of tb.currencies) {
      const i = built.currencies.indexOf(c.currency_id);
      expect(i).toBeGreaterThanOrEqual(0);
      expect(formatUnits(built.totals[i])).toBe(c.user_liabilities);
    }
    const usdt = tb.currencies.find((c) => c.currency_id === USDT)!;
    // Deposits 50000.000000000000000001 + 777.5, less the seller's 30 USDT fee (0.1% of 30000), now the system's.
    expect(usdt.user_liabilities).toBe('50747.500000000000000001');
    // The books at that ledger entry give the same totals (entries after it would not count).
    const fromLedger: Array<{ currency_id: number; total: string }> = await t.ds.query(
      `SELECT currency_id, SUM(available_delta + frozen_delta)::text AS total FROM ledger WHERE owner_type = 'user' AND id <= $1 GROUP BY currency_id`,
      [built.watermark.ledgerEntryId],
    );
    for (const r of fromLedger) expect(built.totals[built.currencies.indexOf(Number(r.currency_id))]).toBe(String(units(r.total)));
  });

  it('the operator’s build is an event with the operator and the reason', async () => {
    const [admin] = await t.ds.query(`SELECT id FROM admins WHERE email = $1`, [ADMIN.email]);
    const events = await t.ds.query(`SELECT type, payload, metadata FROM events WHERE type = 'ProofRootPublished'`);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      payload: { root: built.root, leafCount: 4, watermarkSeq: built.watermark.seq, watermarkEntryId: built.watermark.ledgerEntryId },
      metadata: { actor: `admin:${admin.id}`, reason: 'monthly attestation' },
    });
  });

  it('download=1: a file that the standalone verifier accepts (exit 0); tampered, it fails at the step that breaks (exit 1)', async () => {
    const res = await get('proof/mine?download=1', users[1].token).buffer(true).parse((r, cb) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => (text += d));
      r.on('end', () => cb(null, text));
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="kestrel-proof-${built.root.slice(0, 16)}.json"`);
    expect(res.headers['content-type']).toContain('application/json');
    const file = join(dir, 'proof.json');
    writeFileSync(file, res.body as string);
    const proof = JSON.parse(res.body as string) as LiabilityProof;
    expect(proof).toEqual((await get('proof/mine', users[1].token)).body.data); // no envelope: the proof itself

    const roots = join(dir, 'roots.json');
    writeFileSync(roots, JSON.stringify((await get('proof/roots')).body));
    const ok = verifier(file, '--roots', roots);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('the root is published');
    expect(ok.stdout.trim().split('\n').pop()).toBe('verified');

    // One balance up by one unit: the leaf changes, so the computed root differs at the last step.
    const tampered = { ...proof, balances: proof.balances.map((b, i) => (i === built.currencies.indexOf(USDT) ? String(BigInt(b) + 1n) : b)) };
    writeFileSync(join(dir, 'tampered.json'), JSON.stringify(tampered));
    const bad = verifier(join(dir, 'tampered.json'));
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(new RegExp(`FAILED at step ${proof.path.length}: computed root [0-9a-f]{64} differs`));
    // A sibling hiding a negative balance fails at its own step.
    const negative = { ...proof, path: proof.path.map((s, i) => (i === 0 ? { ...s, sums: s.sums.map((x, k) => (k === 0 ? '-1' : x)) } : s)) };
    writeFileSync(join(dir, 'negative.json'), JSON.stringify(negative));
    const neg = verifier(join(dir, 'negative.json'));
    expect(neg.status).toBe(1);
    expect(neg.stdout).toContain('FAILED at step 1: step 1 sums[0] is negative');
  });

  it('every root is kept, the latest first, paged; a proof is for the latest root that holds the user', async () => {
    const second = (await build()).body.data as ProofRoot;
    // Same books, new salts? No: same salts, but the leaves are shuffled again, so the root may differ; the totals may not.
    expect(second.totals).toEqual(built.totals);
    expect(second.watermark).toEqual(built.watermark);
    const daily = await t.app.get(ProofService).build('daily', 'system:proof');
    const list = (await get('proof/roots')).body.data;
    expect(list.total).toBe(3);
    expect(list.items.map((r: ProofRoot) => r.root)).toEqual([daily.root, second.root, built.root]);
    expect(list.items[2]).toEqual(built);
    expect((await get('proof/roots?page=2&limit=1')).body.data).toMatchObject({ total: 3, page: 2, limit: 1, items: [second] });
    // Only operator builds are events.
    expect(await t.ds.query(`SELECT COUNT(*)::int AS n FROM events WHERE type = 'ProofRootPublished'`)).toEqual([{ n: 2 }]);
    const mine = (await get('proof/mine', users[0].token)).body.data as LiabilityProof;
    expect(mine.root).toBe(daily.root);
    expect(verifyProof(mine).ok).toBe(true);
  });

  it('start-up builds only when no root was taken at the current watermark', async () => {
    const proofs = t.app.get(ProofService);
    expect(await proofs.buildIfStale('startup')).toBeNull();
    await deposit(t, users[3].user.id, USDT, '5');
    const fresh = await proofs.buildIfStale('startup');
    expect(fresh).not.toBeNull();
    expect(Number(fresh!.watermark.ledgerEntryId)).toBeGreaterThan(Number(built.watermark.ledgerEntryId));
    expect(await proofs.buildIfStale('startup')).toBeNull();
    const [row] = await t.ds.query(`SELECT trigger, actor FROM proof_roots ORDER BY id DESC LIMIT 1`);
    expect(row).toEqual({ trigger: 'startup', actor: 'system:proof' });
  });

  it('the queued jobs: "startup" after a change builds once, "daily" always publishes', async () => {
    const queue = t.app.get(ProofJobsService).queue!;
    const latest = async () => (await t.ds.query(`SELECT id::int, trigger FROM proof_roots ORDER BY id DESC LIMIT 1`))[0] as { id: number; trigger: string };
    const waitFor = async (pred: (r: { id: number; trigger: string }) => boolean) => {
      for (let i = 0; i < 100 && !pred(await latest()); i++) await new Promise((r) => setTimeout(r, 50));
      return latest();
    };
    const before = await latest();
    await deposit(t, users[3].user.id, USDT, '1');
    await queue.add('startup', {});
    const afterStartup = await waitFor((r) => r.id > before.id);
    expect(afterStartup).toEqual({ id: before.id + 1, trigger: 'startup' });
    await queue.add('daily', {});
    expect(await waitFor((r) => r.id > afterStartup.id)).toEqual({ id: afterStartup.id + 1, trigger: 'daily' });
  });

  it('a user registered after the latest root: code 3200, with a message in their language', async () => {
    const late = await registerByEmail(t);
    const res = await get('proof/mine', late.token).set('lang', 'en');
    expect(res.body).toMatchObject({ code: 3200, type: 'error' });
    expect(res.body.message).toMatch(/\w/);
    const zh = await get('proof/mine', late.token).set('lang', 'zh');
    expect(zh.body.code).toBe(3200);
    expect(zh.body.message).not.toBe(res.body.message);
    // Included from the next root on.
    await build('after a registration');
    const mine = (await get('proof/mine', late.token)).body.data as LiabilityProof;
    expect(verifyProof(mine).ok).toBe(true);
  });

  it('10,000 users: one build, and a proof served from it (figures in the log)', async () => {
    // Balances written straight into the read table for 10,000 more owners (the proof reads only that table).
    await t.ds.query(
      `INSERT INTO balances (owner_type, owner_id, account_type, currency_id, available, frozen)
       SELECT 'user', 1000000 + g, a, c, (g * 1.000000000000000001 + c)::numeric(36,18), (g % 7)::numeric
       FROM generate_series(1, 10000) g, (VALUES ('lever'), ('trust')) acc(a), (VALUES (1), (3)) cur(c)`,
    );
    const proofs = t.app.get(ProofService);
    const started = Date.now();
    const root = await proofs.build('operator', 'system:proof');
    const buildMs = Date.now() - started;
    const served = Date.now();
    const proof = (await get('proof/mine', users[0].token)).body.data as LiabilityProof;
    const firstProofMs = Date.now() - served;
    expect(proof.root).toBe(root.root);
    expect(verifyProof(proof).ok).toBe(true);
    // One step for each level where the leaf's node has a sibling: an odd node at the end of a level
    // is carried up without a step, and the leaves are shuffled, so the length follows the position.
    const [{ position, leaves }] = await t.ds.query(
      `SELECT l.position, r.leaf_count AS leaves FROM proof_leaves l JOIN proof_roots r ON r.id = l.root_id WHERE r.root = $1 AND l.user_id = $2`,
      [root.root, users[0].user.id],
    );
    expect(leaves).toBe(10_000 + users.length + 1);
    let steps = 0;
    for (let i = Number(position), width = leaves; width > 1; i = Math.floor(i / 2), width = Math.ceil(width / 2)) if ((i ^ 1) < width) steps++;
    expect(proof.path.length).toBe(steps);
    expect(steps).toBeLessThanOrEqual(Math.ceil(Math.log2(leaves)));
    console.log(`proof of liabilities: ${10_000 + users.length + 1} leaves, ${root.currencies.length} currencies: build ${buildMs} ms, first proof (tree rebuilt from the stored leaves) ${firstProofMs} ms`);
    expect(buildMs).toBeLessThan(30_000);
  });
});
