import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { io, Socket } from 'socket.io-client';
import { NoticePushService } from '../src/modules/notice/notice-push.service';
import { adminToken, lastCode, registerByEmail, setFundPassword, verifyBasic } from './support/accounts';
import { deposit } from './support/funding';
import { uniquePng } from './support/images';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const USDT = 3;
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRON2 = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
type Notice = { id: string; kind: string; title: string; content: string; read: boolean; unread: number };

/** Notices on real PostgreSQL + Redis: decisions leave exactly one message, counted, read, pushed live, private. */
describe('notices: messages from decisions (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let url: string;
  let admin: string;
  const clients: Socket[] = [];
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false });
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
    const coins = (await get(admin, 'admin/coins')).body.data as Array<{ currency_id: number; chains: Array<{ id: number; chain: string }> }>;
    const trc = coins.find((c) => c.currency_id === USDT)!.chains.find((c) => c.chain === 'TRC20')!;
    expect((await post(admin, `admin/chains/${trc.id}`, { deposit_address: TRON2, reason: 'hot wallet' })).body.code).toBe(1);
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await t.close();
  });

  const post = (token: string, path: string, body: Record<string, unknown> = {}, lang = 'en') =>
    t.http().post(`/api/${path}`).set('Authorization', token).set('lang', lang).type('form').send(body);
  const get = (token: string, path: string, query: Record<string, unknown> = {}, lang = 'en') =>
    t.http().get(`/api/${path}`).set('Authorization', token).set('lang', lang).query(query);
  const connect = (token: string, lang: string) =>
    new Promise<Socket>((resolve, reject) => {
      const c = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token, lang }, reconnection: false, forceNew: true });
      clients.push(c);
      c.once('connect', () => resolve(c));
      c.once('connect_error', reject);
    });
  const nextNotice = (c: Socket) =>
    new Promise<Notice>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no notice pushed')), 5000);
      c.once('notice', (m: Notice) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
  async function depositRequest(token: string, amount: string): Promise<number> {
    const img = await t
      .http()
      .post('/api/upload/image')
      .set('Authorization', token)
      .attach('file', uniquePng(4, 4), { filename: 'p.png', contentType: 'image/png' });
    const r = await post(token, 'wallet/charge_req', { currency_id: USDT, chain: 'TRC20', amount, image_id: img.body.data.id });
    expect(r.body.code).toBe(1);
    return r.body.data.deposit_id as number;
  }

  it('a deposit approval leaves exactly one message (even with two operators at once), counted unread and pushed to the owner live', async () => {
    const a = await registerByEmail(t);
    const b = await registerByEmail(t);
    const socketA = await connect(a.token, 'zh');
    const socketB = await connect(b.token, 'en');
    let bGotOne = false;
    socketB.on('notice', () => (bGotOne = true));
    expect((await get(a.token, 'notice/unread')).body).toMatchObject({ code: 1, data: { unread: 0 } });

    const id = await depositRequest(a.token, '250.5');
    const pushed = nextNotice(socketA);
    const decisions = await Promise.all([1, 2].map(() => post(admin, `admin/deposits/${id}/approve`, { reason: 'tx seen on chain' })));
    expect(decisions.map((r) => r.body.code).sort()).toEqual([1, 2209]);

    // Pushed in the socket's language, with the new unread count.
    expect(await pushed).toMatchObject({
      kind: 'deposit_approved',
      title: '充值与提现',
      content: expect.stringContaining('250.5 USDT'),
      read: false,
      unread: 1,
    });
    const list = (await get(a.token, 'notice/list')).body.data;
    expect(list).toMatchObject({ total: 1, unread: 1, page: 1 });
    expect(list.items).toEqual([
      expect.objectContaining({
        kind: 'deposit_approved',
        title: 'Deposits and withdrawals',
        content: 'Your deposit of 250.5 USDT has been credited',
        ref: `deposit:${id}`,
        read: false,
      }),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(bGotOne).toBe(false);
    expect((await get(b.token, 'notice/list')).body.data).toMatchObject({ items: [], total: 0, unread: 0 });
  });

  it('a withdrawal rejection leaves one message with the reason; mark one and all as read; user B can neither read nor mark A’s messages', async () => {
    const a = await registerByEmail(t);
    const b = await registerByEmail(t);
    await setFundPassword(t, a);
    await verifyBasic(t, a, admin);
    await deposit(t, a.user.id, USDT, '100');
    await post(a.token, 'sms_mail', { purpose: 'address' });
    const addr = await post(a.token, 'wallet/addaddress', {
      currency_id: USDT,
      chain: 'TRC20',
      address: TRON,
      password: '135790',
      code: await lastCode(t.ds, a.email),
    });
    const w = await post(a.token, 'wallet/out', { address_id: addr.body.data.id, amount: '50', password: '135790' });
    expect(w.body.code).toBe(1);
    // Verification approved (one message) + the rejection (one message).
    expect((await post(admin, `admin/withdrawals/${w.body.data.withdrawal_id}/reject`, { reason: 'address under review' })).body.code).toBe(1);
    const list = (await get(a.token, 'notice/list', {}, 'en')).body.data;
    const rejected = list.items.filter((m: Notice) => m.kind === 'withdrawal_rejected');
    expect(rejected).toEqual([
      expect.objectContaining({ content: 'Your withdrawal of 50 USDT was rejected and the funds returned: address under review', read: false }),
    ]);
    const unread = list.unread as number;
    expect(unread).toBe(list.items.length);
    expect(unread).toBeGreaterThanOrEqual(2);

    // B: another user's message is "not found", and nothing changes.
    const other = await post(b.token, 'notice/read', { id: rejected[0].id });
    expect(other.body).toMatchObject({ code: 2910, message: 'Message not found', data: null });
    expect((await get(a.token, 'notice/unread')).body.data.unread).toBe(unread);
    expect((await post(b.token, 'notice/read_all')).body.data).toEqual({ updated: 0, unread: 0 });
    expect((await get(a.token, 'notice/unread')).body.data.unread).toBe(unread);

    // Bad input: a clear message, no change.
    for (const id of ['', 'abc', '-1', '0', '1; DROP TABLE user_messages']) {
      const r = await post(a.token, 'notice/read', { id });
      expect(r.body).toMatchObject({ code: 1000, message: 'Choose a message', data: null });
    }
    expect((await post(a.token, 'notice/read', { id: '1', extra: 'x' })).body.code).toBe(1001);
    expect((await get('', 'notice/list')).body.code).toBe(401);
    expect((await get(a.token, 'notice/list', { page: 0 })).body.code).toBe(1000);

    const one = await post(a.token, 'notice/read', { id: rejected[0].id }, 'zh');
    expect(one.body.data).toMatchObject({ id: rejected[0].id, read: true, unread: unread - 1, content: expect.stringContaining('address under review') });
    // Reading twice is harmless.
    expect((await post(a.token, 'notice/read', { id: rejected[0].id })).body.data.unread).toBe(unread - 1);
    // Up to the newest shown: a message that came after it stays unread (regression: it was marked read unseen).
    const shown = list.items.map((m: Notice) => BigInt(m.id)).reduce((x: bigint, y: bigint) => (y > x ? y : x));
    const [later] = await t.ds.query(
      `INSERT INTO user_messages (user_id, title_key, params, ref) VALUES ($1, 'notice.kyc_approved', '{"level":"1"}', 'later') RETURNING id::text`,
      [a.user.id],
    );
    expect((await post(a.token, 'notice/read_all', { up_to: String(shown) })).body.data).toEqual({ updated: unread - 1, unread: 1 });
    expect((await get(a.token, 'notice/list')).body.data.items.find((m: Notice) => m.id === later.id)).toMatchObject({ read: false });
    expect((await post(a.token, 'notice/read_all', { up_to: 'abc' })).body.code).toBe(1000);
    expect((await post(a.token, 'notice/read_all')).body.data).toEqual({ updated: 1, unread: 0 });
    expect((await get(a.token, 'notice/list')).body.data.items.every((m: Notice) => m.read)).toBe(true);
  });

  it('paging: newest first, limit and page', async () => {
    const a = await registerByEmail(t);
    const ids: number[] = [];
    for (const amount of ['11', '12', '13']) ids.push(await depositRequest(a.token, amount));
    for (const id of ids) expect((await post(admin, `admin/deposits/${id}/reject`, { reason: `no transfer ${id}` })).body.code).toBe(1);
    const p1 = (await get(a.token, 'notice/list', { page: 1, limit: 2 })).body.data;
    const p2 = (await get(a.token, 'notice/list', { page: 2, limit: 2 })).body.data;
    expect(p1).toMatchObject({ total: 3, unread: 3, page: 1, limit: 2 });
    expect(p1.items.map((m: Notice) => m.content)).toEqual([
      `Your deposit of 13 USDT was rejected: no transfer ${ids[2]}`,
      `Your deposit of 12 USDT was rejected: no transfer ${ids[1]}`,
    ]);
    expect(p2.items.map((m: Notice) => m.content)).toEqual([`Your deposit of 11 USDT was rejected: no transfer ${ids[0]}`]);
  });

  it('newest first also across a power of ten in the ids (regression: sorted as text, 1000 came after 999)', async () => {
    const a = await registerByEmail(t);
    const [{ next }] = await t.ds.query(`SELECT nextval(pg_get_serial_sequence('user_messages', 'id'))::int AS next`);
    const ten = 10 ** String(next).length;
    // The next two messages get ids ten − 1 and ten (e.g. 999 and 1000).
    await t.ds.query(`SELECT setval(pg_get_serial_sequence('user_messages', 'id'), $1)`, [ten - 2]);
    const ids: number[] = [];
    for (const amount of ['21', '22']) ids.push(await depositRequest(a.token, amount));
    for (const id of ids) expect((await post(admin, `admin/deposits/${id}/reject`, { reason: 'none' })).body.code).toBe(1);
    const items = (await get(a.token, 'notice/list', { page: 1, limit: 10 })).body.data.items as Notice[];
    expect(items.map((m) => m.content)).toEqual(['Your deposit of 22 USDT was rejected: none', 'Your deposit of 21 USDT was rejected: none']);
  });
  it('the listening connection comes back after Postgres drops it, retrying while connecting fails (regression: one retry, then no pushes until a restart)', async () => {
    const a = await registerByEmail(t);
    const socketA = await connect(a.token, 'en');
    const service = t.app.get(NoticePushService) as unknown as { client?: Client & { processID?: number } };
    const before = service.client!.processID!;
    expect(before).toEqual(expect.any(Number));
    // The listener's next connect fails (as while Postgres is still down); other connections are untouched.
    const realConnect = Client.prototype.connect;
    let refused = 0;
    const spy = jest.spyOn(Client.prototype, 'connect').mockImplementation(function (this: Client, ...args: unknown[]) {
      if (refused === 0 && args.length === 0 && this.listenerCount('notification') > 0) {
        refused++;
        return Promise.reject(new Error('connect ECONNREFUSED (test)'));
      }
      return (realConnect as (...a: unknown[]) => Promise<Client>).apply(this, args);
    } as typeof Client.prototype.connect);
    try {
      await t.ds.query('SELECT pg_terminate_backend($1)', [before]);
      // Listening again on a new connection: after 1 s (refused), then 2 s.
      let listening = false;
      for (let i = 0; i < 100 && !listening; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const pid = service.client?.processID;
        if (!pid || pid === before) continue;
        const [row] = await t.ds.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'idle' AND query LIKE 'LISTEN %'`, [pid]);
        listening = !!row;
      }
      expect(refused).toBe(1);
      expect(listening).toBe(true);
    } finally {
      spy.mockRestore();
    }
    const id = await depositRequest(a.token, '31');
    const pushed = nextNotice(socketA);
    expect((await post(admin, `admin/deposits/${id}/approve`, { reason: 'tx seen on chain' })).body.code).toBe(1);
    expect(await pushed).toMatchObject({ kind: 'deposit_approved', content: 'Your deposit of 31 USDT has been credited', unread: 1 });
  });
});
