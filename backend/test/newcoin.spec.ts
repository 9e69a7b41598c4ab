import { EngineHost } from '../src/modules/engine/engine-host.service';
import { TradeAccountCommands } from '../src/modules/engine/trade-account-commands';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { money, moneyString } from '../src/infra/money';
import { IeoAllocationService } from '../src/modules/newcoin/ieo-allocation.service';
import { IeoProject } from '../src/modules/newcoin/ieo-project.entity';
import { adminToken, registerByEmail, setFundPassword } from './support/accounts';
import { coinBalance, deposit } from './support/funding';
import { ADMIN, startTestApp, TestApp } from './support/test-app';
import { JOURNAL_COMMANDS } from '../src/modules/engine/journal-writer';

const USDT = 3;

/**
 * New-coin subscriptions (IEO), end to end on real PostgreSQL + Redis: operator projects, the
 * sequencer freezing payments, the allocation run (called here; the BullMQ worker is off so each
 * run is the test's own), the published result and the new coin's market.
 */
describe('IEO: subscribe, allocate pro rata, refund, distribute (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let admin: string;
  let symbols = 0;
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
  });
  afterAll(() => t.close());
  // Balances held by the sequencer are compared at the projector's watermark.
  afterEach(async () => {
    await t.app.get(EngineHost).idle();
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.currencies.filter((c) => !c.balanced)).toEqual([]);
  });

  const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
  async function project(over: Record<string, unknown> = {}) {
    symbols += 1;
    const res = await t
      .http()
      .post('/api/admin/ieo')
      .set('Authorization', admin)
      .type('form')
      .send({
        symbol: `NC${symbols}X`,
        name: `New Coin ${symbols}`,
        decimals: 2,
        price: '0.5',
        supply: '1000',
        start_at: iso(-1000),
        end_at: iso(60_000),
        min_qty: '10',
        max_qty: '1000',
        website: 'https://example.org',
        white_paper: 'https://example.org/paper.pdf',
        reason: 'listing committee decision 7',
        ...over,
      });
    expect(res.body).toMatchObject({ code: 1 });
    return res.body.data as { id: number; coin_id: number; symbol: string };
  }
  const submit = (token: string, body: Record<string, unknown>) =>
    t.http().post('/api/lh/newcoin/order/submit').set('Authorization', token).type('form').send(body);
  let clientIds = 0;
  /** A subscription carries a client id (required): a fresh one, unless the case sends its own (a retry). */
  const subscribe = (token: string, body: Record<string, unknown>) => submit(token, { client_id: `sub-${(clientIds += 1)}`, ...body });
  const info = (token: string, projectId?: number) =>
    t
      .http()
      .get('/api/lh/newcoin/order/info')
      .set('Authorization', token)
      .query(projectId ? { project_id: projectId } : {});
  const close = (id: number) => t.ds.query(`UPDATE ieo_projects SET end_at = now() - interval '1 second' WHERE id = $1`, [id]);
  async function user(usdt: string) {
    const u = await registerByEmail(t);
    if (usdt !== '0') await deposit(t, u.user.id, USDT, usdt);
    return u;
  }

  it('operators create and edit projects with a reason (each an event); the supply is recorded from external; states follow the clock', async () => {
    const bad = await t.http().post('/api/admin/ieo').set('Authorization', admin).type('form').send({ symbol: 'x', reason: 'r' });
    expect(bad.body.code).toBe(1000);
    const p = await project({ start_at: iso(3_600_000), end_at: iso(7_200_000) });
    const cfg = (await t.http().get('/api/lh/newcoin/config').query({ id: p.id })).body.data;
    expect(cfg).toMatchObject({ state: 'upcoming', price: '0.5', supply: '1000', currency: 'USDT', min_qty: '10', max_qty: '1000', result: null, decimals: 2 });
    expect(cfg.seconds_to_start).toBeGreaterThan(3500);
    const issuer = await t.ds.query(
      `SELECT available::text FROM balances WHERE owner_type = 'system' AND owner_id = $1 AND account_type = 'ieo' AND currency_id = $2`,
      [p.id, p.coin_id],
    );
    expect(moneyString(issuer[0].available)).toBe('1000');
    const edited = await t
      .http()
      .post(`/api/admin/ieo/${p.id}`)
      .set('Authorization', admin)
      .type('form')
      .send({ supply: '1500', reason: 'issuer raised the supply' });
    expect(edited.body.data).toMatchObject({ supply: '1500' });
    const noReason = await t.http().post(`/api/admin/ieo/${p.id}`).set('Authorization', admin).type('form').send({ supply: '1600' });
    expect(noReason.body).toMatchObject({ code: 1000, message: 'A reason is required' });
    // A name of nothing but spaces is no name, on an edit as on a create (regression: an edit blanked the coin's name).
    for (const name of ['', '   '])
      expect((await t.http().post(`/api/admin/ieo/${p.id}`).set('Authorization', admin).type('form').send({ name, reason: 'r' })).body).toMatchObject({
        code: 1000,
        message: 'Enter the coin name',
      });
    expect(
      (await t.http().post('/api/admin/ieo').set('Authorization', admin).type('form').send({ symbol: 'BLANKN', name: '   ', reason: 'r' })).body,
    ).toMatchObject({ code: 1000, message: 'Enter the coin name' });
    expect((await t.ds.query('SELECT c.name FROM coins c JOIN ieo_projects p ON p.coin_id = c.id WHERE p.id = $1', [p.id]))[0].name).not.toBe('');
    const events = await t.ds.query(`SELECT type, metadata FROM events WHERE stream_id = $1 ORDER BY seq`, [`ieo:${p.id}`]);
    const decisions = events.filter((e: { type: string }) => e.type.startsWith('Ieo'));
    expect(decisions.map((e: { type: string }) => e.type)).toEqual(['IeoProjectCreated', 'IeoProjectEdited']);
    // The supply and its change are ledger postings from `external` in the same stream.
    expect(events.filter((e: { type: string }) => e.type === 'LedgerPosted')).toHaveLength(2);
    expect(decisions[1].metadata).toMatchObject({ reason: 'issuer raised the supply' });
    const dup = await t
      .http()
      .post('/api/admin/ieo')
      .set('Authorization', admin)
      .type('form')
      .send({
        symbol: p.symbol,
        name: 'again',
        decimals: 2,
        price: '1',
        supply: '10',
        start_at: iso(0),
        end_at: iso(1000),
        min_qty: '1',
        max_qty: '10',
        reason: 'r',
      });
    expect(dup.body).toMatchObject({ code: 2608, message: 'A coin with this symbol already exists' });
    const list = (await t.http().get('/api/lh/newcoin/config')).body.data as Array<{ id: number; state: string }>;
    expect(list.find((x) => x.id === p.id)?.state).toBe('upcoming');
  });

  it("a project's terms keep every subscription's payment below 10^18: max_qty × price of 10^18 or more is refused on creation and on an edit, nothing written", async () => {
    const big = '999999999999999999';
    const create = (over: Record<string, unknown>) => {
      symbols += 1;
      const symbol = `NC${symbols}X`;
      const body = {
        symbol,
        name: 'Big',
        decimals: 0,
        price: '1',
        supply: big,
        start_at: iso(3_600_000),
        end_at: iso(7_200_000),
        min_qty: '1',
        max_qty: big,
        reason: 'r',
        ...over,
      };
      return t
        .http()
        .post('/api/admin/ieo')
        .set('Authorization', admin)
        .type('form')
        .send(body)
        .then((r) => ({ symbol, body: r.body }));
    };
    const coins = async () => (await t.ds.query('SELECT COUNT(*)::int AS n FROM coins'))[0].n as number;
    const before = await coins();
    // max_qty × price exactly 10^18, and above it.
    for (const over of [{ price: '2', max_qty: '500000000000000000' }, { price: '1.5' }]) expect((await create(over)).body).toMatchObject({ code: 1000 });
    expect(await coins()).toBe(before);
    // Just below 10^18: accepted; an edit that would raise the price past it is refused, the terms unchanged.
    const ok = await create({});
    expect(ok.body).toMatchObject({ code: 1, data: { price: '1', max_qty: big } });
    const edit = await t.http().post(`/api/admin/ieo/${ok.body.data.id}`).set('Authorization', admin).type('form').send({ price: '1.00000001', reason: 'r' });
    expect(edit.body).toMatchObject({ code: 1000 });
    expect((await t.http().get('/api/lh/newcoin/config').query({ id: ok.body.data.id })).body.data).toMatchObject({ price: '1', max_qty: big });
    expect(
      (await t.http().post(`/api/admin/ieo/${ok.body.data.id}`).set('Authorization', admin).type('form').send({ max_qty: '1000', price: '2', reason: 'r' }))
        .body,
    ).toMatchObject({
      code: 1,
      data: { price: '2', max_qty: '1000' },
    });
  });

  it('every validation rule answers its message and changes nothing', async () => {
    const open = await project();
    const later = await project({ start_at: iso(3_600_000), end_at: iso(7_200_000) });
    expect(
      (
        await t
          .http()
          .post('/api/admin/ieo')
          .set('Authorization', admin)
          .type('form')
          .send({
            symbol: 'PASTX',
            name: 'Past',
            decimals: 2,
            price: '1',
            supply: '10',
            start_at: iso(-10_000),
            end_at: iso(-5000),
            min_qty: '1',
            max_qty: '10',
            reason: 'r',
          })
      ).body,
    ).toMatchObject({
      code: 1000,
      message: 'Enter a valid subscription period: the end must be after the start',
    });
    const ended = await project();
    await close(ended.id);
    const u = await user('100');
    await setFundPassword(t, u);
    const before = await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries');
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ quantity: '10' }, 1000, 'Choose a project'],
      [{ project_id: 999999, quantity: '10' }, 2600, 'Project not found'],
      [{ project_id: later.id, quantity: '10' }, 2601, 'Subscription has not started yet'],
      [{ project_id: ended.id, quantity: '10' }, 2602, 'Subscription has ended'],
      [{ project_id: open.id }, 1000, 'Quantity is empty'],
      [{ project_id: open.id, quantity: 'abc' }, 1000, 'Enter a valid amount'],
      [{ project_id: open.id, quantity: '0' }, 1000, 'Enter a valid amount'],
      [{ project_id: open.id, quantity: '5' }, 2603, 'Quantity must be between 10 and 1000'],
      [{ project_id: open.id, quantity: '1001' }, 2603, 'Quantity must be between 10 and 1000'],
      [{ project_id: open.id, quantity: '10.123' }, 2605, 'Quantity can have at most 2 decimal places'],
      [{ project_id: open.id, quantity: '201' }, 2000, 'Insufficient balance'],
      [{ project_id: open.id, quantity: '201', client_id: 'retry-1' }, 2000, 'Insufficient balance'],
    ];
    for (const [body, code, message] of cases) expect((await subscribe(u.token, body)).body).toMatchObject({ code, message });
    // Without a client id (a retry after 2105/2107 would be a second subscription): refused by the form, nothing written.
    for (const body of [
      { project_id: open.id, quantity: '10' },
      { project_id: open.id, quantity: '10', client_id: '' },
    ])
      expect((await submit(u.token, body)).body).toMatchObject({ code: 1000, message: 'client_id is required' });
    expect((await t.http().post('/api/lh/newcoin/order/submit').type('form').send({ project_id: open.id, quantity: '10' })).body.code).toBe(401);
    expect(await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries')).toEqual(before);
    expect(await t.ds.query('SELECT COUNT(*)::int AS n FROM ieo_subscriptions WHERE user_id = $1', [u.user.id])).toEqual([{ n: 0 }]);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '100', frozen: '0' });

    // The per-user maximum counts every subscription of theirs; a retried client id is one subscription.
    const rich = await user('1000');
    const first = await subscribe(rich.token, { project_id: open.id, quantity: '600', client_id: 'c-1' });
    expect(first.body).toMatchObject({ code: 1, message: 'Subscription submitted', data: { quantity: '600', payment: '300', status: 'subscribed' } });
    const again = await subscribe(rich.token, { project_id: open.id, quantity: '600', client_id: 'c-1' });
    expect(again.body.data.id).toBe(first.body.data.id);
    expect((await subscribe(rich.token, { project_id: open.id, quantity: '401' })).body).toMatchObject({
      code: 2604,
      message: 'You can subscribe for at most 1000 in total; 400 left',
    });
    expect(await coinBalance(t, rich.user.id, USDT)).toEqual({ available: '700', frozen: '300' });
    const codes = await t.ds.query(
      `SELECT code, available_delta::text AS a, frozen_delta::text AS f FROM ledger_entries WHERE ref_type = 'ieo-subscription' AND owner_id = $1`,
      [rich.user.id],
    );
    expect(codes.map((c: { code: number; a: string; f: string }) => [c.code, moneyString(c.a), moneyString(c.f)])).toEqual([[103, '-300', '300']]);
  });

  // Found by `npm run test:chaos` (split roles): on an api process, which holds no balances in
  // memory, the quick balance check read 0 and refused every subscription with "Insufficient
  // balance". Such a process now leaves the check to the sequencer.
  it('on a process without the sequencer (ROLE=api) a subscription goes through; a short one is refused by the sequencer, nothing left', async () => {
    const p = await project();
    const u = await user('100');
    const host = t.app.get(EngineHost);
    const owner = jest.spyOn(host, 'owner', 'get').mockReturnValue(false);
    const balance = jest.spyOn(host, 'balance').mockReturnValue(undefined);
    try {
      expect((await subscribe(u.token, { project_id: p.id, quantity: '100' })).body).toMatchObject({ code: 1, data: { payment: '50', status: 'subscribed' } });
      expect((await subscribe(u.token, { project_id: p.id, quantity: '101' })).body).toMatchObject({ code: 2000, message: 'Insufficient balance' });
    } finally {
      owner.mockRestore();
      balance.mockRestore();
    }
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '50', frozen: '50' });
    expect(await t.ds.query('SELECT COUNT(*)::int AS n FROM ieo_subscriptions WHERE user_id = $1', [u.user.id])).toEqual([{ n: 1 }]);
  });

  it('concurrent retries of one client id are one subscription; concurrent subscriptions never pass the per-user maximum', async () => {
    const p = await project({ supply: '5000', price: '1', decimals: 0, min_qty: '1', max_qty: '1000' });
    const u = await user('5000');
    const retries = await Promise.all(Array.from({ length: 5 }, () => subscribe(u.token, { project_id: p.id, quantity: '100', client_id: 'same' })));
    expect(retries.map((a) => a.body.code)).toEqual([1, 1, 1, 1, 1]);
    expect(new Set(retries.map((a) => a.body.data.id)).size).toBe(1);
    const answers = await Promise.all(Array.from({ length: 10 }, () => subscribe(u.token, { project_id: p.id, quantity: '200' })));
    expect(answers.filter((a) => a.body.code === 1)).toHaveLength(4);
    expect(answers.filter((a) => a.body.code === 2604)).toHaveLength(6);
    const [{ n, total }] = await t.ds.query(
      `SELECT COUNT(*)::int AS n, SUM(quantity)::text AS total FROM ieo_subscriptions WHERE project_id = $1 AND user_id = $2`,
      [p.id, u.user.id],
    );
    expect([n, moneyString(total)]).toEqual([5, '900']);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '4100', frozen: '900' });
  });

  it('a client id is answered before the window: a retry after the end hears its subscription; in its own project, also when sent for another (regression: 2602, and a freeze in the other project’s currency)', async () => {
    const a = await project({ supply: '5000', price: '1', decimals: 0, min_qty: '1', max_qty: '1000' });
    const b = await project({ supply: '5000', price: '2', decimals: 0, min_qty: '1', max_qty: '1000' });
    const u = await user('5000');
    const first = (await subscribe(u.token, { project_id: a.id, quantity: '100', client_id: 'retry-1' })).body;
    expect(first).toMatchObject({ code: 1, data: { project_id: a.id, payment: '100' } });
    // The same id for project B: the first request's subscription, in A; nothing made or frozen in B.
    const other = (await subscribe(u.token, { project_id: b.id, quantity: '10', client_id: 'retry-1' })).body;
    expect(other).toMatchObject({ code: 1, data: { id: first.data.id, project_id: a.id, payment: '100' } });
    await close(a.id);
    const late = (await subscribe(u.token, { project_id: a.id, quantity: '100', client_id: 'retry-1' })).body;
    expect(late).toMatchObject({ code: 1, data: { id: first.data.id } });
    // A new id after the end is refused as before.
    expect((await subscribe(u.token, { project_id: a.id, quantity: '100', client_id: 'retry-2' })).body.code).toBe(2602);
    // The same new id sent for both projects at once: one subscription, and both answer it.
    const c = await project({ supply: '5000', price: '2', decimals: 0, min_qty: '1', max_qty: '1000' });
    const both = await Promise.all([b, c].map((p) => subscribe(u.token, { project_id: p.id, quantity: '5', client_id: 'twin' })));
    expect(both.map((r) => r.body.code)).toEqual([1, 1]);
    expect(both[0].body.data.id).toBe(both[1].body.data.id);
    const rows: Array<{ project_id: number }> = await t.ds.query('SELECT project_id FROM ieo_subscriptions WHERE user_id = $1 ORDER BY id', [u.user.id]);
    expect(rows.map((r) => r.project_id)).toEqual([a.id, both[0].body.data.project_id]);
    expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '4890', frozen: '110' });
  });

  it('once someone has subscribed the terms stay, whatever the operator’s clock says; a subscription is priced by the terms under the lock (regression: an edit raced it, and the allocation could never pay)', async () => {
    const p = await project({ start_at: iso(3_600_000), end_at: iso(7_200_000) });
    const u = await user('1000');
    const edit = (body: Record<string, unknown>) =>
      t
        .http()
        .post(`/api/admin/ieo/${p.id}`)
        .set('Authorization', admin)
        .type('form')
        .send({ ...body, reason: 'r' });
    // Another process's clock opened the window: a subscription exists while this one's says upcoming.
    await t.ds.query(`UPDATE ieo_projects SET start_at = now() - interval '1 second' WHERE id = $1`, [p.id]);
    expect((await subscribe(u.token, { project_id: p.id, quantity: '100' })).body).toMatchObject({ code: 1, data: { payment: '50' } });
    await t.ds.query(`UPDATE ieo_projects SET start_at = now() + interval '1 hour' WHERE id = $1`, [p.id]);
    expect((await edit({ price: '0.8' })).body.code).toBe(2607);
    // Nor does the end move, either way, with the demand in view (regression: it could, changing
    // everyone's pro-rata share); the same end sent again is no change.
    const [{ end_at: end }] = await t.ds.query('SELECT end_at FROM ieo_projects WHERE id = $1', [p.id]);
    expect((await edit({ end_at: iso(10_800_000) })).body.code).toBe(2607);
    expect((await edit({ end_at: iso(5_400_000) })).body.code).toBe(2607);
    expect((await edit({ end_at: new Date(end).toISOString(), intro: 'same end' })).body.code).toBe(1);
    expect((await t.ds.query('SELECT end_at FROM ieo_projects WHERE id = $1', [p.id]))[0].end_at).toEqual(end);
    expect((await edit({ intro: 'still editable' })).body.code).toBe(1);
    // A subscription whose first read saw other terms than those under the lock is checked against the locked ones.
    const q = await project({ price: '0.5' });
    const repo = t.ds.getRepository(IeoProject);
    const real = repo.findOne.bind(repo);
    // The request's first read (outside its transaction) sees a price of 0.1; the row under the lock says 0.5.
    const findOne = jest.spyOn(repo, 'findOne').mockImplementationOnce(async (o) => ({ ...(await real(o))!, price: '0.1' }) as IeoProject);
    try {
      expect((await subscribe(u.token, { project_id: q.id, quantity: '100' })).body).toMatchObject({ code: 1, data: { payment: '50' } });
    } finally {
      findOne.mockRestore();
    }
  });

  it('subscribers are people (one who subscribed twice counts once); a project whose run fails does not hold back the others due', async () => {
    const p = await project();
    const [a, b] = [await user('1000'), await user('1000')];
    for (const [u, quantity] of [
      [a, '100'],
      [a, '50'],
      [b, '10'],
    ] as const)
      expect((await subscribe(u.token, { project_id: p.id, quantity })).body.code).toBe(1);
    const broken = await project();
    await close(broken.id);
    await close(p.id);
    // The first project due (by id) fails its run: the next is still allocated and distributed.
    const svc = t.app.get(IeoAllocationService);
    const run = svc.run.bind(svc);
    const failing = jest.spyOn(svc, 'run').mockImplementation((id, now) => (id === broken.id ? Promise.reject(new Error('broken project')) : run(id, now)));
    try {
      await svc.runDue();
    } finally {
      failing.mockRestore();
    }
    const listed = (await t.http().get('/api/admin/ieo').set('Authorization', admin)).body.data as Array<{ id: number; status: string; subscribers: number }>;
    expect(listed.find((x) => x.id === p.id)).toMatchObject({ status: 'distributed', subscribers: 2 });
    expect(listed.find((x) => x.id === broken.id)?.status).not.toBe('distributed');
  });

  it('the list filtered by state holds exactly the projects in that state (the query filters, before it takes the newest 200, by the same rule as each project’s state)', async () => {
    const upcoming = await project({ start_at: iso(3_600_000), end_at: iso(7_200_000) });
    const active = await project();
    const ended = await project();
    await close(ended.id);
    const config = async (state?: string) =>
      (await t.http().get('/api/lh/newcoin/config').query(state ? { state } : {})).body.data as Array<{ id: number; state: string }>;
    const all = await config();
    const byState = Object.fromEntries(await Promise.all(['upcoming', 'active', 'ended', 'distributed'].map(async (s) => [s, await config(s)] as const)));
    for (const [state, list] of Object.entries(byState)) expect(list.every((p) => p.state === state)).toBe(true);
    expect(Object.values(byState).flat().map((p) => p.id).sort((x, y) => x - y)).toEqual(all.map((p) => p.id).sort((x, y) => x - y));
    expect(byState.upcoming.map((p) => p.id)).toContain(upcoming.id);
    expect(byState.active.map((p) => p.id)).toContain(active.id);
    expect(byState.ended.map((p) => p.id)).toContain(ended.id);
  });

  it('oversubscribed 3× by 100 subscribers: allocations ≤ supply, refunds + allocations × price = payments exactly; totals published, own amounts private', async () => {
    // 100 random requests (1.000–300.000, 3 decimals) whose total is exactly 3× the supply.
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const thousandths = Array.from({ length: 100 }, () => 1000 + Math.floor(rand() * 299_000));
    const total = thousandths.reduce((a, b) => a + b, 0);
    thousandths[99] += (3 - (total % 3)) % 3;
    const requested = money(thousandths.reduce((a, b) => a + b, 0)).div(1000);
    const supply = moneyString(requested.div(3));
    const p = await project({ supply, price: '0.37', decimals: 3, min_qty: '1', max_qty: supply });
    const qs = thousandths.map((x) => money(x).div(1000));
    const users: Array<{ token: string; user: { id: number }; q: string }> = [];
    for (let i = 0; i < 100; i += 10) {
      const batch = await Promise.all(
        qs.slice(i, i + 10).map(async (q) => {
          const u = await user(money(q).times('0.37').plus(1).toFixed(0));
          return { ...u, q: moneyString(q) };
        }),
      );
      users.push(...batch);
    }
    const answers = await Promise.all(users.map((u, i) => subscribe(u.token, { project_id: p.id, quantity: u.q, client_id: `s-${i}` })));
    expect(answers.filter((a) => a.body.code !== 1).map((a) => a.body)).toEqual([]);
    // Before the end nothing is published.
    expect((await info(users[0].token, p.id)).body.data).toMatchObject({ project: { state: 'active', result: null }, mine: { allocation: null } });

    await close(p.id);
    expect(await t.app.get(IeoAllocationService).run(p.id)).toBe('distributed');
    expect(await t.app.get(IeoAllocationService).run(p.id)).toBe('distributed'); // a second run changes nothing

    const rows: Array<{ user_id: number; quantity: string; payment: string; allocation: string; paid: string; refund: string; status: string }> =
      await t.ds.query(
        'SELECT user_id, quantity::text, payment::text, allocation::text, paid::text, refund::text, status FROM ieo_subscriptions WHERE project_id = $1',
        [p.id],
      );
    expect(rows).toHaveLength(100);
    const sum = (f: (r: (typeof rows)[number]) => string) => rows.reduce((s, r) => s.plus(f(r)), money(0));
    expect(sum((r) => r.allocation).lte(supply)).toBe(true);
    for (const r of rows) {
      expect(money(r.refund).plus(money(r.allocation).times('0.37')).equals(r.payment)).toBe(true);
      expect(money(r.allocation).decimalPlaces()).toBeLessThanOrEqual(3);
      expect(r.status).toBe('settled');
    }
    expect(
      sum((r) => r.refund)
        .plus(sum((r) => r.allocation).times('0.37'))
        .equals(sum((r) => r.payment)),
    ).toBe(true);

    // Published totals for everyone (visitors too); nobody's amounts or identity.
    const pub = (await t.http().get('/api/lh/newcoin/config').query({ id: p.id })).body.data;
    expect(pub.state).toBe('distributed');
    expect(pub.result).toMatchObject({
      requested: moneyString(requested),
      supply,
      ratio: '0.33333333',
      allocated: moneyString(sum((r) => r.allocation)),
      refunded: moneyString(sum((r) => r.refund)),
    });
    expect(money(pub.result.remainder).equals(money(supply).minus(pub.result.allocated))).toBe(true);
    expect(JSON.stringify(pub)).not.toMatch(/user|email/);

    // Each user sees their own request, allocation and refund, in their trade account too.
    const a = users[3];
    const mine = rows.find((r) => r.user_id === a.user.id)!;
    const seen = (await info(a.token, p.id)).body.data;
    expect(seen.mine).toMatchObject({
      requested: moneyString(mine.quantity),
      allocation: moneyString(mine.allocation),
      refund: moneyString(mine.refund),
      distributed: true,
    });
    expect(seen.items).toHaveLength(1);
    expect(seen.items[0]).toMatchObject({ status: 'distributed', allocation: moneyString(mine.allocation) });
    expect(await coinBalance(t, a.user.id, p.coin_id)).toEqual({ available: moneyString(mine.allocation), frozen: '0' });
    const funded = money(mine.payment).plus(1).toFixed(0);
    expect(await coinBalance(t, a.user.id, USDT)).toEqual({ available: moneyString(money(funded).minus(mine.paid)), frozen: '0' });
    // User B sees only B's.
    const b = users[4];
    const bSeen = (await info(b.token, p.id)).body.data;
    expect(bSeen.items.map((x: { id: string }) => x.id)).not.toContain(seen.items[0].id);
    const bText = JSON.stringify(bSeen);
    expect(bText).not.toMatch(/user_id|email/);
    for (const v of [mine.quantity, mine.allocation, mine.refund]) expect(bText).not.toContain(`"${moneyString(v)}"`);
    expect(bSeen.mine.requested).toBe(moneyString(rows.find((r) => r.user_id === b.user.id)!.quantity));
    const { n } = (await t.ds.query(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'ieo-settlement'`))[0];
    expect(n).toBeGreaterThan(0);
  });

  it('a crash after some settlements, then a rerun: every subscriber settled once, no double credit or refund', async () => {
    const p = await project({ supply: '100', price: '2', decimals: 0, min_qty: '1', max_qty: '100' });
    const us = await Promise.all([user('200'), user('200'), user('200'), user('200'), user('200')]);
    for (const u of us) expect((await subscribe(u.token, { project_id: p.id, quantity: '60' })).body.code).toBe(1);
    await close(p.id);
    const alloc = t.app.get(IeoAllocationService);
    const trading = t.app.get(TradeAccountCommands);
    // Crash 1: the sequencer applies the 2nd settlement but the process dies before recording it.
    const post = trading.post.bind(trading);
    let settlements = 0;
    const spy = jest.spyOn(trading, 'post').mockImplementation(async (cmd) => {
      const r = await post(cmd);
      if (cmd.commandId.startsWith('ieo-settle:') && ++settlements === 2) throw new Error('killed after the sequencer applied it');
      return r;
    });
    await expect(alloc.run(p.id)).rejects.toThrow('killed');
    spy.mockRestore();
    const mid = await t.ds.query(`SELECT status, COUNT(*)::int AS n FROM ieo_subscriptions WHERE project_id = $1 GROUP BY status ORDER BY status`, [p.id]);
    expect(mid).toEqual([
      { status: 'active', n: 4 },
      { status: 'settled', n: 1 },
    ]);
    // Crash 2: the rerun dies after recording one more.
    alloc.afterSettle = () => {
      alloc.afterSettle = undefined;
      throw new Error('killed after recording');
    };
    await expect(alloc.run(p.id)).rejects.toThrow('killed after recording');
    expect(await alloc.run(p.id)).toBe('distributed');

    // 300 asked for 100: 20 each (ratio 1/3 of 60 = 20), paid 40, refunded 80; the new coin once.
    for (const u of us) {
      expect(await coinBalance(t, u.user.id, p.coin_id)).toEqual({ available: '20', frozen: '0' });
      expect(await coinBalance(t, u.user.id, USDT)).toEqual({ available: '160', frozen: '0' });
    }
    const results = await t.ds.query(`SELECT settle_result, COUNT(*)::int AS n FROM ieo_subscriptions WHERE project_id = $1 GROUP BY 1 ORDER BY 1`, [p.id]);
    expect(results).toEqual([
      { settle_result: 'OK', n: 4 },
      { settle_result: 'OK applied', n: 1 },
    ]);
    const issuer = await t.ds.query(
      `SELECT currency_id, available::text FROM balances WHERE owner_type = 'system' AND owner_id = $1 AND account_type = 'ieo' ORDER BY currency_id`,
      [p.id],
    );
    expect(issuer.map((r: { currency_id: number; available: string }) => [r.currency_id, moneyString(r.available)])).toEqual([
      [USDT, '200'],
      [p.coin_id, '0'],
    ]);
  });

  it('a project whose total requested passes 10^18 is allocated (regression: its totals overflowed numeric(36,18) and the job retried for ever)', async () => {
    const big = '500000000000000000';
    const p = await project({ supply: big, price: '0.00000001', decimals: 0, min_qty: '1', max_qty: big });
    const users = await Promise.all([user('5000000000'), user('5000000000'), user('5000000000')]);
    for (const u of users)
      expect((await subscribe(u.token, { project_id: p.id, quantity: big })).body).toMatchObject({ code: 1, data: { payment: '5000000000' } });
    await close(p.id);
    expect(await t.app.get(IeoAllocationService).run(p.id)).toBe('distributed');
    const pub = (await t.http().get('/api/lh/newcoin/config').query({ id: p.id })).body.data;
    expect(pub.result).toMatchObject({ requested: '1500000000000000000', payments: '15000000000' });
    expect(await coinBalance(t, users[0].user.id, p.coin_id)).toEqual({ available: '166666666666666666', frozen: '0' });
  });

  it('not oversubscribed: everyone gets what they asked for, no refund; then an operator lists the coin and it trades', async () => {
    const p = await project({ supply: '1000', price: '0.5', decimals: 2, min_qty: '10', max_qty: '1000' });
    const seller = await user('100');
    const buyer = await user('500');
    await setFundPassword(t, seller);
    await setFundPassword(t, buyer);
    expect((await subscribe(seller.token, { project_id: p.id, quantity: '100' })).body.code).toBe(1);
    // Listing before distribution is refused.
    const early = await t
      .http()
      .post(`/api/admin/ieo/${p.id}/market`)
      .set('Authorization', admin)
      .type('form')
      .send({ tick_size: '0.0001', lot_size: '0.01', reason: 'r' });
    expect(early.body).toMatchObject({ code: 2606 });
    await close(p.id);
    expect(await t.app.get(IeoAllocationService).run(p.id)).toBe('distributed');
    expect(await coinBalance(t, seller.user.id, p.coin_id)).toEqual({ available: '100', frozen: '0' });
    expect(await coinBalance(t, seller.user.id, USDT)).toEqual({ available: '50', frozen: '0' });
    const pub = (await t.http().get('/api/lh/newcoin/config').query({ id: p.id })).body.data;
    expect(pub.result).toMatchObject({ requested: '100', allocated: '100', ratio: '1', refunded: '0', unallocated: '900', remainder: '0' });

    // Units the sequencer would refuse (tick × lot finer than the ledger's 18 decimals) are refused
    // before anything is written: no market row, still not listed.
    for (const units of [
      { tick_size: '0.0000001', lot_size: '0.000000000001' },
      { tick_size: '0.000000001', lot_size: '0.0000000001' },
    ]) {
      const bad = await t
        .http()
        .post(`/api/admin/ieo/${p.id}/market`)
        .set('Authorization', admin)
        .type('form')
        .send({ ...units, reason: 'r' });
      expect(bad.body).toMatchObject({ code: 1000 });
    }
    expect(await t.ds.query('SELECT 1 FROM markets WHERE symbol = $1', [`${p.symbol}/USDT`])).toEqual([]);

    const listed = await t
      .http()
      .post(`/api/admin/ieo/${p.id}/market`)
      .set('Authorization', admin)
      .type('form')
      .send({ tick_size: '0.0001', lot_size: '0.01', maker_fee: '0.001', taker_fee: '0.001', reason: 'listing after distribution' });
    expect(listed.body).toMatchObject({ code: 1, data: { market: `${p.symbol}/USDT` } });
    const twice = await t
      .http()
      .post(`/api/admin/ieo/${p.id}/market`)
      .set('Authorization', admin)
      .type('form')
      .send({ tick_size: '0.0001', lot_size: '0.01', reason: 'r' });
    expect(twice.body).toMatchObject({ code: 2609 });
    const journaled = await t.ds.query(`SELECT 1 FROM sequencer_journal WHERE (${JOURNAL_COMMANDS})::jsonb @> $1::jsonb`, [
      JSON.stringify([{ t: 'market', market: { symbol: `${p.symbol}/USDT` } }]),
    ]);
    expect(journaled).toHaveLength(1);

    const order = (token: string, body: Record<string, string>) =>
      t
        .http()
        .post('/api/coin/trade')
        .set('Authorization', token)
        .type('form')
        .send({ symbol: `${p.symbol}/USDT`, ...body });
    const sell = await order(seller.token, { side: 'sell', type: 'limit', price: '0.6', quantity: '40' });
    expect(sell.body).toMatchObject({ code: 1, data: { status: 'waiting' } });
    const buy = await order(buyer.token, { side: 'buy', type: 'limit', price: '0.6', quantity: '40' });
    expect(buy.body).toMatchObject({ code: 1, data: { status: 'completed', filled_qty: '40' } });
    await t.app.get(EngineHost).idle();
    expect(await coinBalance(t, buyer.user.id, p.coin_id)).toEqual({ available: '39.96', frozen: '0' });
    const trades = await t.ds.query(`SELECT COUNT(*)::int AS n FROM trades WHERE market_id = $1`, [listed.body.data.market_id]);
    expect(trades).toEqual([{ n: 1 }]);
    const tickers = (await t.http().get('/api/currencyMatch/all')).body;
    expect(JSON.stringify(tickers)).toContain(`${p.symbol}/USDT`);
  });
});
