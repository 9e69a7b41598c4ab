import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, registerByEmail, setFundPassword } from './support/accounts';
import { balances, buildWorld, CROSS_USER_CASES, idFields, isRefusal, NO_RESOURCE, REFUSAL_CODE, World } from './support/cross-user';
import { deposit } from './support/funding';
import { nestRoutes, Route, socketEvents } from './support/routes';
import { socketClients } from './support/sockets';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

/**
 * Authorization matrix (issue: reliability and security suite, item 3). The routes come from what
 * the app registers: Nest's controllers (path + method metadata, classified by their guards) and
 * the Express router is cross-checked so a route that Nest does not describe fails the test unless
 * it is in EXCEPTIONS. Routes served outside Nest's router (the fast lane) are listed explicitly.
 * Cross-user cases (support/cross-user.ts): user B on user A's resources, over HTTP and Socket.IO,
 * each route's and event's id-like fields decided; and sockets of a revoked token.
 */
// Routes served outside Nest's router (backend/src/infra/http/fast-lane.ts answers place and cancel
// before Express): checked as user routes on their own, beside the Nest routes of the same path.
const OUTSIDE_NEST: Route[] = [
  { method: 'POST', path: '/api/coin/trade', kind: 'user' },
  { method: 'PUT', path: '/api/coin/trade', kind: 'user' },
];
// Express routes Nest's controllers do not describe: the API docs (public) and the catch-all that answers 404.
const EXCEPTIONS = [/^GET \/api\/docs/, /^[A-Z-]+ \/api\{\/\*splat\}$/];

/** Every (method, path) Express will answer, from its router stack. */
function expressRoutes(t: TestApp): string[] {
  const inst = t.app.getHttpAdapter().getInstance() as { router?: { stack: Layer[] }; _router?: { stack: Layer[] } };
  type Layer = { route?: { path: string; methods: Record<string, boolean> } };
  const stack = (inst.router ?? inst._router)?.stack ?? [];
  return stack.flatMap((l) => (l.route ? Object.keys(l.route.methods).filter((m) => m !== '_all').map((m) => `${m.toUpperCase()} ${l.route!.path}`) : []));
}

// The cross-user cases record mark-price ticks themselves (contract positions).
process.env.MARK_PRICE = 'off';

const concrete = (path: string) => path.replace(/:[A-Za-z_]+/g, '1');

describe('authorization matrix', () => {
  let t: TestApp;
  let routes: Route[];
  let cases = 0;
  const leaks: string[] = [];
  beforeAll(async () => {
    // A flash-desk float (flash exchange quotes) and a treasury (wealth interest) for the cross-user cases.
    t = await startTestApp({ optionWorker: false, flashExchange: { feeRate: '0.002', quoteTtlSeconds: 60, float: { USDT: '1000000', BTC: '10' } } });
    routes = [...nestRoutes(t), ...OUTSIDE_NEST];
  });
  afterAll(async () => {
    const line = `authz: ${routes?.length ?? 0} routes, ${cases} cases, ${leaks.length} leaks`;
    // npm run test:authz prints this file last (jest's own summary comes after the tests).
    writeFileSync(join(tmpdir(), 'kestrel-authz.txt'), line + '\n');
    console.log(line);
    await t?.close();
  });

  const call = async (r: Route, token?: string) => {
    let req = t.http()[r.method.toLowerCase() as 'get'](concrete(r.path));
    if (token) req = req.set('Authorization', token);
    if (r.method !== 'GET') req = req.type('form').send({});
    return (await req).body as { code?: number; type?: string };
  };
  const refused = (b: { code?: number }) => b?.code === 401;

  it('every route Express registers is classified (public, user or operator)', () => {
    const known = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const unclassified = expressRoutes(t).filter((k) => !known.has(k) && !EXCEPTIONS.some((e) => e.test(k)));
    expect(unclassified).toEqual([]);
    expect(routes.filter((r) => r.kind === 'user').length).toBeGreaterThan(10);
    expect(routes.filter((r) => r.kind === 'operator').length).toBeGreaterThan(5);
  });

  it('answers carry no X-Powered-By (regression: Express announced itself)', async () => {
    const res = await t.http().get('/api/health');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('user and operator routes refuse visitors; operator routes refuse user tokens', async () => {
    const a = await registerByEmail(t);
    for (const r of routes.filter((x) => x.kind !== 'public')) {
      cases += 1;
      if (!refused(await call(r))) leaks.push(`visitor ${r.method} ${r.path}`);
      if (r.kind === 'operator') {
        cases += 1;
        if (!refused(await call(r, a.token))) leaks.push(`user token ${r.method} ${r.path}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it('every guarded route refuses a token revoked by logout or by a password change', async () => {
    const loggedOut = await registerByEmail(t);
    expect((await t.http().post('/api/user/logout').set('Authorization', loggedOut.token).type('form').send({})).body.code).toBe(1);
    const changed = await registerByEmail(t);
    const login = await t.http().post('/api/user/login').type('form').send({ account: changed.email, password: changed.password });
    const other = login.body.data?.token as string;
    expect(other).toBeTruthy();
    const ch = await t
      .http()
      .post('/api/safe/update_password')
      .set('Authorization', changed.token)
      .type('form')
      .send({ old_password: changed.password, password: 'another-pass', re_password: 'another-pass' });
    expect(ch.body.code).toBe(1);
    const op = await adminToken(t, ADMIN.email, ADMIN.password);
    for (const r of routes.filter((x) => x.kind === 'user')) {
      for (const [label, tok] of [
        ['after logout', loggedOut.token],
        ['after password change', other],
      ] as const) {
        cases += 1;
        if (!refused(await call(r, tok))) leaks.push(`${label} ${r.method} ${r.path}`);
      }
    }
    // Operator routes with a user token revoked are already refused; check an operator token works.
    expect(op).toBeTruthy();
    expect(leaks).toEqual([]);
  });
  it('every user route naming a resource by id has a cross-user decision (a case, or a reason it names none)', () => {
    const decided = new Set(CROSS_USER_CASES.map((c) => `${c.route} ${c.field}`));
    const undecided = routes
      .filter((r) => r.kind === 'user')
      .flatMap((r) => idFields(r).map((f) => `${r.method} ${r.path} ${f}`))
      .filter((k) => !decided.has(k) && !NO_RESOURCE[k.slice(0, k.lastIndexOf(' '))]?.[k.slice(k.lastIndexOf(' ') + 1)]);
    expect(undecided).toEqual([]);
    // No stale entries: every case and every reason names a registered user route and one of its fields.
    const known = new Set(routes.filter((r) => r.kind === 'user').flatMap((r) => (r.fields ?? []).map((f) => `${r.method} ${r.path} ${f}`)));
    const stale = [...decided, ...Object.entries(NO_RESOURCE).flatMap(([r, fs]) => Object.keys(fs).map((f) => `${r} ${f}`))].filter((k) => !known.has(k));
    expect(stale).toEqual([]);
    // Every case refused with an error states which refusal it expects.
    expect(CROSS_USER_CASES.filter((c) => c.refused === 'error' && REFUSAL_CODE[`${c.route} ${c.field}`] === undefined).map((c) => c.route)).toEqual([]);
  });

  it("client ids are each user's own: every unique index on a client id includes the owner", async () => {
    const idx: Array<{ indexname: string; indexdef: string }> = await t.ds.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexdef LIKE 'CREATE UNIQUE%' AND indexdef ~ 'client_(order_)?id'`,
    );
    expect(idx.length).toBeGreaterThan(5);
    // The owner's column: `user_id`, an NFT's `buyer_id`, a chat message's `sender_id` (the index covers users' messages only).
    expect(idx.filter((i) => !/\((user_id|buyer_id|sender_id), /.test(i.indexdef)).map((i) => i.indexname)).toEqual([]);
  });

  let world: World | undefined;
  const aValues = new Set<string>(); // the ids of A's resources the cases named
  it("user B is refused on user A's resources, and nothing of A's, B's or the ledger changes", async () => {
    const w = (world = await buildWorld(t));
    const broken: string[] = []; // a setup that failed: the case proved nothing (not a leak, but the test fails)
    for (const c of CROSS_USER_CASES) {
      const name = `cross-user ${c.route} ${c.field}${c.label ? ` (${c.label})` : ''}`;
      try {
        const target = await c.setup(w);
        // balances() first: it waits for the engine's projection, which the rows (orders) come from.
        const before = { balances: await balances(w), row: await target.row() };
        aValues.add(String(target.value));
        const answer = await c.call(w, target.value);
        const after = { balances: await balances(w), row: await target.row() };
        cases += 1;
        if (!isRefusal(c, answer) || (c.ownScope && !(await c.ownScope(w, answer, target.value)))) leaks.push(`${name}: answered ${JSON.stringify(answer).slice(0, 300)}`);
        if (JSON.stringify(before.row) !== JSON.stringify(after.row)) leaks.push(`${name}: A's resource changed: ${JSON.stringify(before.row)} → ${JSON.stringify(after.row)}`);
        if (JSON.stringify(before.balances) !== JSON.stringify(after.balances)) leaks.push(`${name}: balances or the trial balance changed`);
        // A refusal for anything but the id (input, balance, state) proves nothing.
        const expected = REFUSAL_CODE[`${c.route} ${c.field}`];
        if (answer.code !== 1 && expected !== undefined && answer.code !== expected) broken.push(`${name}: refused with ${answer.code} (${answer.message}), not ${expected}`);
      } catch (e) {
        broken.push(`${name}: ${(e as Error).message}`);
      }
    }
    expect({ leaks, broken }).toEqual({ leaks: [], broken: [] });
  });
  it("user B's reads (every user GET route) show nothing of A's: not A's account, id, uploads or quotes", async () => {
    const w = world ?? (world = await buildWorld(t));
    const uuids = [...aValues].filter((v) => /^[0-9a-f-]{36}$/i.test(v));
    expect(uuids.length).toBeGreaterThan(5);
    const marks = [w.a.email, `"user_id":${w.a.user.id},`, `"user_id":${w.a.user.id}}`, ...uuids];
    for (const r of routes.filter((x) => x.kind === 'user' && x.method === 'GET')) {
      const res = await t.http().get(concrete(r.path)).set('Authorization', w.b.token);
      cases += 1;
      const text = JSON.stringify(res.body ?? null);
      const seen = marks.filter((m) => text.includes(m));
      if (seen.length) leaks.push(`B's read ${r.method} ${r.path} shows A's ${seen.join(', ')}`);
    }
    expect(leaks).toEqual([]);
  });

  // Socket.IO: every event a gateway answers has a decision; B's socket is refused on A's order, user
  // room, conversation and upload, and receives none of A's pushes afterwards.
  const SOCKET_NO_RESOURCE: Record<string, string> = {
    unsubscribe: "leaves rooms of the caller's own socket only (and never its user room)",
    'chat:leave': "leaves a room of the caller's own socket only",
  };
  const SOCKET_CASES = ['order', 'subscribe', 'chat:join', 'chat:send', 'chat:ops'];

  it('every Socket.IO event has a cross-user decision', async () => {
    const events = await socketEvents(t);
    expect(events.length).toBeGreaterThanOrEqual(7);
    expect(events.filter((e) => !SOCKET_CASES.includes(e) && !SOCKET_NO_RESOURCE[e])).toEqual([]);
    expect([...SOCKET_CASES, ...Object.keys(SOCKET_NO_RESOURCE)].filter((e) => !events.includes(e))).toEqual([]);
  });

  it("user B's socket is refused on user A's order, user room, conversation and upload, and hears none of A's pushes", async () => {
    const w = world ?? (world = await buildWorld(t));
    const { connect, emit, closeAll } = await socketClients(t);
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    try {
      const [sa, sb] = [await connect(w.a.token), await connect(w.b.token)];
      const heardByB: string[] = [];
      for (const ev of ['orders', 'balance', 'position', 'option', 'chat:message', 'chat:read', 'notice']) sb.on(ev, (m: unknown) => heardByB.push(`${ev} ${JSON.stringify(m)}`));
      const check = async (name: string, act: () => Promise<Record<string, unknown> | unknown[]>, refused: (a: Record<string, unknown>) => boolean, row: () => Promise<unknown>) => {
        const before = { balances: await balances(w), row: await row() };
        const answer = (await act()) as Record<string, unknown>;
        const after = { balances: await balances(w), row: await row() };
        cases += 1;
        if (!refused(answer)) leaks.push(`socket ${name}: answered ${JSON.stringify(answer).slice(0, 300)}`);
        if (JSON.stringify(before) !== JSON.stringify(after)) leaks.push(`socket ${name}: A's resource or a balance changed`);
      };

      // order: B cancels A's resting order over the socket.
      const placed = await w.post(w.a, 'coin/trade', { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100', quantity: '0.01' });
      const orderId = (placed.data as { order_id: string }).order_id;
      const orderRow = () => t.ds.query('SELECT * FROM orders WHERE id = $1', [orderId]);
      await check('order cancel', () => emit(sb, 'order', { id: 1, method: 'cancel', params: { order_id: orderId } }), (a) => typeof a.code === 'number' && a.code !== 1 && a.code !== 401, orderRow);

      // subscribe: B asks for A's user room.
      await check('subscribe user room', () => emit(sb, 'subscribe', [`user:${w.a.user.id}`]), (a) => typeof a?.error === 'string', async () => null);

      // chat:join: B asks for A's conversation.
      await w.post(w.a, 'help/chat/send', { text: 'Where is my withdrawal?' });
      const conv = ((await w.get(w.a, 'help/chat')).data as { conversation_id: string }).conversation_id;
      expect((await emit(sa, 'chat:join', { conversation_id: conv })).ok).toBe(true);
      const convRow = () => t.ds.query('SELECT * FROM chat_conversations WHERE id = $1', [conv]);
      await check('chat:join', () => emit(sb, 'chat:join', { conversation_id: conv }), (a) => a.ok === false && !('messages' in a), convRow);

      // chat:send: B's message with A's image.
      const image = await w.upload(w.a);
      const imageRows = async () => ({
        upload: await t.ds.query('SELECT * FROM uploads WHERE id = $1', [image]),
        b: await t.ds.query(`SELECT COUNT(*)::int AS n FROM chat_messages WHERE sender = 'user' AND sender_id = $1`, [w.b.user.id]),
      });
      // (regression: the refusal's error was the catalogue key 'upload.not_found', not the message)
      await check('chat:send image', () => emit(sb, 'chat:send', { image }), (a) => a.ok === false && a.error === 'The image was not found. Please upload it again', imageRows);

      // chat:ops: a user token is refused on the operators' room.
      await check('chat:ops', () => emit(sb, 'chat:ops'), (a) => a.ok === false, async () => null);

      // A's pushes after all that: an order update, a balance change and an operator's reply reach A only.
      const heardByA = Promise.all(['chat:message', 'orders'].map((ev) => new Promise((resolve) => sa.once(ev, resolve))));
      const second = await w.post(w.a, 'coin/trade', { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '101', quantity: '0.01' });
      await w.post(w.admin, `admin/help/conversations/${conv}/reply`, { text: 'Checking it now' });
      await heardByA;
      await sleep(300);
      cases += 1;
      // B's own feed (its positions, balances) may arrive; anything naming A's orders, conversation or id may not.
      const ids = [orderId, (second.data as { order_id: string }).order_id];
      const mentionsA = [...ids.map((id) => new RegExp(`"order_id":"?${id}"?[,}]`)), new RegExp(`"conversation_id":"?${conv}"?[,}]`), new RegExp(`"user_id":${w.a.user.id}[,}]`)];
      const ofA = heardByB.filter((m) => mentionsA.some((x) => x.test(m)));
      if (ofA.length) leaks.push(`socket pushes of A heard by B: ${ofA.join('; ')}`);
    } finally {
      closeAll();
    }
    expect(leaks).toEqual([]);
  });

  it('Socket.IO: a token revoked by logout or by a password change stops order entry, chat and the private pushes', async () => {
    const { connect, emit, closeAll } = await socketClients(t);
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    try {
      for (const how of ['logout', 'password change'] as const) {
        const u = await registerByEmail(t);
        await setFundPassword(t, u);
        await deposit(t, u.user.id, 3, '1000');
        // A second session of the same user: it stays valid and acts while the first one is revoked.
        const other = (await t.http().post('/api/user/login').type('form').send({ account: u.email, password: u.password })).body.data.token as string;
        const s = await connect(u.token);
        const sent = await emit(s, 'chat:send', { text: 'before' });
        expect(sent.ok).toBe(true); // the socket works before (and caches who it is)
        const conv = (sent.message as { conversation_id: string }).conversation_id;
        const heard: string[] = [];
        s.on('order', (m: unknown) => heard.push(`order ${JSON.stringify(m)}`));
        s.on('balance', (m: unknown) => heard.push(`balance ${JSON.stringify(m)}`));
        s.on('chat:message', (m: unknown) => heard.push(`chat:message ${JSON.stringify(m)}`));
        if (how === 'logout') expect((await t.http().post('/api/user/logout').set('Authorization', u.token).type('form').send({})).body.code).toBe(1);
        else
          expect(
            (
              await t
                .http()
                .post('/api/safe/update_password')
                .set('Authorization', other)
                .type('form')
                .send({ old_password: u.password, password: 'another-pass', re_password: 'another-pass' })
            ).body.code,
          ).toBe(1);
        const live = how === 'logout' ? other : ((await t.http().post('/api/user/login').type('form').send({ account: u.email, password: 'another-pass' })).body.data.token as string);
        const refused = (a: Record<string, unknown> | undefined) => a === undefined || a.code === 401 || (a.ok === false && a.code === 401);
        const tries: Array<[string, () => Promise<Record<string, unknown> | undefined>]> = [
          ['order place', () => emit(s, 'order', { id: 1, method: 'place', params: { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100', quantity: '0.01' } })],
          ['chat:send', () => emit(s, 'chat:send', { text: 'after' })],
          ['chat:join', () => emit(s, 'chat:join', { conversation_id: conv })],
        ];
        for (const [name, act] of tries) {
          cases += 1;
          const a = s.connected ? await act().catch(() => undefined) : undefined; // a socket closed by the server is refused too
          if (!refused(a)) leaks.push(`socket after ${how}: ${name} answered ${JSON.stringify(a).slice(0, 200)}`);
        }
        // The live session places an order and an operator answers the chat: the revoked socket must hear neither.
        const placed = await t.http().post('/api/coin/trade').set('Authorization', live).type('form').send({ symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '100', quantity: '0.01' });
        expect(placed.body.code).toBe(1);
        const op = await adminToken(t, ADMIN.email, ADMIN.password);
        expect((await t.http().post(`/api/admin/help/conversations/${conv}/reply`).set('Authorization', op).type('form').send({ text: 'still there?' })).body.code).toBe(1);
        await sleep(300);
        cases += 1;
        if (heard.length) leaks.push(`socket after ${how}: heard ${heard.join('; ').slice(0, 300)}`);
      }
    } finally {
      closeAll();
    }
    expect(leaks).toEqual([]);
  });
});
