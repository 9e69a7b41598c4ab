import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { WealthProductsService } from '../src/modules/finance/wealth-products.service';
import { WealthAccrualService } from '../src/modules/finance/wealth-accrual.service';
import { epochDay } from '../src/modules/finance/wealth-terms';
import { money, moneyString, truncate } from '../src/infra/money';
import { adminToken, registerByEmail } from './support/accounts';
import { deposit } from './support/funding';
import { inOpenTransaction } from './support/open-transaction';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const USDT = 3;
const DAY = 86_400_000;

describe('wealth products: hosting, flexible fund, mining rental (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let admin: string;
  let accrual: WealthAccrualService;
  beforeAll(async () => {
    // The house's treasury float (900) is what reserves the promised interest.
    t = await startTestApp({ flashExchange: { feeRate: '0.002', quoteTtlSeconds: 15, float: { USDT: '1000000' } } });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
    accrual = t.app.get(WealthAccrualService);
  });
  afterAll(() => t.close());
  afterEach(async () => expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true));

  const get = (token: string | null, path: string, query: Record<string, unknown> = {}) => {
    const r = t.http().get(`/api/${path}`).query(query);
    return token ? r.set('Authorization', token) : r;
  };
  const post = (token: string, path: string, body: Record<string, unknown> = {}) =>
    t.http().post(`/api/${path}`).set('Authorization', token).type('form').send(body);
  const trust = async (userId: number) => {
    const [row] = await t.ds.query(
      `SELECT available::text, frozen::text FROM balances WHERE owner_type = 'user' AND owner_id = $1 AND account_type = 'trust' AND currency_id = $2`,
      [userId, USDT],
    );
    return { available: moneyString(row?.available ?? '0'), frozen: moneyString(row?.frozen ?? '0') };
  };
  const house = async () => {
    const [row] = await t.ds.query(
      `SELECT available::text, frozen::text FROM balances WHERE owner_type = 'system' AND account_type = 'treasury' AND currency_id = $1`,
      [USDT],
    );
    return { available: moneyString(row.available), frozen: moneyString(row.frozen) };
  };
  const products = async (type = 1) =>
    (await get(null, 'lh/deposit/config', { type })).body.data as Array<Record<string, string> & { id: number; days: number }>;
  const product = async (code: string) => [...(await products(1)), ...(await products(2))].find((p) => p.code === code)!;
  const counts = async () =>
    (await t.ds.query(`SELECT (SELECT COUNT(*) FROM ledger_entries)::int AS entries, (SELECT COUNT(*) FROM wealth_orders)::int AS orders`))[0];

  /** A user with `usdt` in the trust account (deposited to the trade account, then transferred). */
  async function investor(usdt = '20000') {
    const u = await registerByEmail(t);
    await deposit(t, u.user.id, USDT, usdt);
    const moved = await post(u.token, 'wallet/change', { from: 'coin', to: 'trust', currency_id: USDT, amount: usdt });
    expect(moved.body.code).toBe(1);
    return u;
  }
  const buy = (token: string, productId: number, amount: string, extra: Record<string, unknown> = {}) =>
    post(token, 'lh/deposit', { product_id: productId, amount, agree: '1', ...extra });

  it('lists the seeded products with the spec example yields (type 1 hosting, type 2 mining rental)', async () => {
    const hosting = await products(1);
    expect(hosting.map((p) => p.code)).toEqual(['flexible', 'hosting-7d', 'hosting-15d', 'hosting-30d']);
    expect(hosting.find((p) => p.code === 'hosting-30d')).toMatchObject({ days: 30, total_rate: '0.1366', status: 'in_progress', min_amount: '1000' });
    expect(hosting.find((p) => p.code === 'hosting-7d')).toMatchObject({ days: 7, total_rate: '0.0297' });
    expect(hosting.find((p) => p.code === 'hosting-15d')).toMatchObject({ days: 15, daily_rate: '0.004', total_rate: '0.06' });
    expect(hosting.find((p) => p.code === 'flexible')).toMatchObject({ kind: 'flexible', accrual_min: '10000', penalty_mode: 'none' });
    expect((await products(2)).map((p) => p.code)).toEqual(['mining-30d']);
    const bad = await get(null, 'lh/deposit/config', { type: 3 });
    expect(bad.body).toMatchObject({ code: 1000, message: 'Type must be 1 (hosting) or 2 (mining-machine rental)' });
    const info = await get(null, 'lh/deposit/product_info', { id: hosting[2].id });
    expect(info.body.data).toMatchObject({ code: 'hosting-15d', example: { amount: '500', daily: '2', total: '30' } });
    expect((await get(null, 'lh/deposit/product_info', { id: 9999 })).body).toMatchObject({ code: 2500, message: 'Product not found' });
  });

  it("names each product in the reader's language (the seeds in all seven); an operator sets the names per language, English required", async () => {
    const inZh = (await get(null, 'lh/deposit/config', { type: 1 }).set('lang', 'zh')).body.data as Array<{ code: string; name: string }>;
    expect(Object.fromEntries(inZh.map((p) => [p.code, p.name]))).toEqual({
      flexible: '活期宝',
      'hosting-7d': '7天托管',
      'hosting-15d': '15天托管',
      'hosting-30d': '30天托管',
    });
    expect((await get(null, 'lh/deposit/config', { type: 2 }).set('lang', 'py')).body.data[0].name).toBe('Mineradora M30');
    // English when none is asked for; every translation in `names`.
    const flexible = await product('flexible');
    expect(flexible.name).toBe('Flexible fund');
    expect(Object.keys(flexible.names as unknown as Record<string, string>).sort()).toEqual(['en', 'hk', 'jp', 'kr', 'py', 'ty', 'zh']);
    expect((await get(null, 'lh/deposit/product_info', { id: flexible.id }).set('lang', 'kr')).body.data.name).toBe('자유 적립 펀드');

    const created = await post(admin, 'admin/wealth/products', {
      kind: 'fixed',
      code: 'named',
      name: 'Spring special',
      names: JSON.stringify({ jp: '春の特別運用' }),
      days: 10,
      min_amount: '100',
      rate: '0.001',
      capacity: '1000',
      reason: 'launch',
    });
    expect(created.body).toMatchObject({ code: 1, data: { name: 'Spring special', names: { en: 'Spring special', jp: '春の特別運用' } } });
    const id = created.body.data.id;
    const named = async (lang: string) =>
      ((await get(null, 'lh/deposit/config', { type: 1 }).set('lang', lang)).body.data as Array<{ id: number; name: string }>).find((p) => p.id === id)!.name;
    expect(await named('jp')).toBe('春の特別運用');
    // No name in that language: the default.
    expect(await named('zh')).toBe('Spring special');
    // A bought order carries the name in the buyer's language.
    const u = await investor('1000');
    const bought = await buy(u.token, id, '100').set('lang', 'jp');
    expect(bought.body.data.name).toBe('春の特別運用');
    expect((await get(u.token, 'lh/deposit/order', { status: 'hosting' }).set('lang', 'jp')).body.data.items[0].name).toBe('春の特別運用');
    // English is the name, whichever is edited.
    const renamed = await post(admin, `admin/wealth/products/${id}`, { name: 'Spring offer', reason: 'rename' });
    expect(renamed.body.data).toMatchObject({ name: 'Spring offer', names: { en: 'Spring offer', jp: '春の特別運用' } });
    expect(await named('en')).toBe('Spring offer');
    // Bad maps are refused and change nothing.
    for (const names of ['{"xx":"Unknown language"}', '{"jp":""}', 'not json', JSON.stringify({ jp: 'x'.repeat(41) })]) {
      expect((await post(admin, `admin/wealth/products/${id}`, { names, reason: 'typo' })).body).toMatchObject({
        code: 1000,
        message: 'names: a JSON object of language to text (1 to 40 characters each)',
      });
    }
    expect(await named('jp')).toBe('春の特別運用');
  });

  it('a seed made before names per language gets them at the next start, unless an operator renamed it', async () => {
    await t.ds.query(`UPDATE wealth_products SET names = '{}' WHERE code IN ('hosting-7d', 'mining-30d')`);
    await t.ds.query(`UPDATE wealth_products SET name = 'Renamed rental' WHERE code = 'mining-30d'`);
    await t.app.get(WealthProductsService).onApplicationBootstrap();
    const rows = await t.ds.query(`SELECT code, name, names FROM wealth_products WHERE code IN ('hosting-7d', 'mining-30d') ORDER BY code`);
    expect(rows).toEqual([
      { code: 'hosting-7d', name: '7-day hosting', names: expect.objectContaining({ en: '7-day hosting', ty: 'ฝากประจำ 7 วัน' }) },
      { code: 'mining-30d', name: 'Renamed rental', names: {} },
    ]);
    await t.ds.query(`UPDATE wealth_products SET name = 'Mining machine M30' WHERE code = 'mining-30d'`);
    await t.app.get(WealthProductsService).onApplicationBootstrap();
  });

  it('every purchase rule answers its message and changes nothing', async () => {
    const u = await investor('500');
    const d7 = await product('hosting-7d');
    const before = await counts();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ product_id: d7.id, agree: '1' }, 1000, 'Amount cannot be empty'],
      [{ product_id: d7.id, amount: 'abc', agree: '1' }, 1000, 'Enter a valid amount'],
      [{ product_id: d7.id, amount: '99.99', agree: '1' }, 2501, 'The amount cannot be less than the minimum custody amount of 100 USDT'],
      [{ product_id: d7.id, amount: '100' }, 1101, 'You have not agreed to the service agreement'],
      [{ product_id: d7.id, amount: '500.01', agree: '1' }, 2000, 'Insufficient balance'],
      [{ product_id: 9999, amount: '100', agree: '1' }, 2500, 'Product not found'],
    ];
    for (const [body, code, message] of cases) expect((await post(u.token, 'lh/deposit', body)).body).toMatchObject({ code, message });
    // Localized: the same refusal in Chinese.
    const zh = await post(u.token, 'lh/deposit', { product_id: d7.id, amount: '100' }).set('lang', 'zh');
    expect(zh.body.message).toBe('您还未同意服务协议');
    // Not on sale: coming soon, then closed by an operator.
    const soon = await post(admin, 'admin/wealth/products', {
      kind: 'fixed',
      code: 'later-10d',
      name: 'Later',
      days: 10,
      min_amount: '100',
      rate: '0.003',
      capacity: '10000',
      sale_start: new Date(Date.now() + 3 * DAY).toISOString(),
      reason: 'next week',
    });
    expect(soon.body.data).toMatchObject({ status: 'soon', starts_in_seconds: expect.any(Number) });
    expect((await buy(u.token, soon.body.data.id, '100')).body).toMatchObject({ code: 2502, message: 'This product is not on sale right now' });
    expect((await post(admin, `admin/wealth/products/${d7.id}/close`, { reason: 'paused' })).body.code).toBe(1);
    expect((await buy(u.token, d7.id, '100')).body.code).toBe(2502);
    expect((await products(1)).map((p) => p.code)).not.toContain('hosting-7d');
    expect((await post(admin, `admin/wealth/products/${d7.id}/open`, { reason: 'resumed' })).body.code).toBe(1);
    expect(await counts()).toEqual({ ...before, entries: before.entries });
    expect(await trust(u.user.id)).toEqual({ available: '500', frozen: '0' });
    // Operator changes are events with the operator and the reason; a user token never opens them.
    const ev = await t.ds.query(`SELECT type, metadata->>'reason' AS reason FROM events WHERE stream_id = $1 ORDER BY seq`, [`wealth-product:${d7.id}`]);
    expect(ev).toEqual([
      { type: 'WealthProductClosed', reason: 'paused' },
      { type: 'WealthProductOpened', reason: 'resumed' },
    ]);
    expect((await post(u.token, `admin/wealth/products/${d7.id}/close`, { reason: 'x' })).body.code).toBe(401);
    expect((await post(admin, `admin/wealth/products/${d7.id}/close`, {})).body.message).toBe('A reason is required');
    // A reason of spaces is none (regression: it was recorded blank).
    expect((await post(admin, `admin/wealth/products/${d7.id}/close`, { reason: '   ' })).body.message).toBe('A reason is required');
    // Another product's code: refused with the rule (regression: the unique index answered 9000); nothing changes.
    const renamed = await post(admin, `admin/wealth/products/${soon.body.data.id}`, { code: 'hosting-7d', reason: 'rename' });
    expect(renamed.body).toMatchObject({ code: 2507, message: expect.stringContaining('code hosting-7d exists') });
    expect(await t.ds.query('SELECT code FROM wealth_products WHERE id = $1', [soon.body.data.id])).toEqual([{ code: 'later-10d' }]);
    // Two operators creating the same code at once: one product, the other told why.
    const twin = { kind: 'fixed', code: 'twin-10d', name: 'Twin', days: 10, min_amount: '100', rate: '0.003', capacity: '10000', reason: 'new' };
    const twins = await Promise.all([post(admin, 'admin/wealth/products', twin), post(admin, 'admin/wealth/products', twin)]);
    expect(twins.map((r) => r.body.code).sort()).toEqual([1, 2507]);
  });

  it('a purchase locks the principal (40), reserves the whole interest from the treasury; a retried client id buys once', async () => {
    const u = await investor('2000');
    const d15 = await product('hosting-15d');
    const h0 = await house();
    const [a, b] = await Promise.all([buy(u.token, d15.id, '1000', { client_id: 'w-1' }), buy(u.token, d15.id, '1000', { client_id: 'w-1' })]);
    expect(a.body).toMatchObject({
      code: 1,
      message: 'Purchase successful',
      data: { amount: '1000', daily_interest: '4', total_interest: '60', status: 'hosting', remaining_days: 15 },
    });
    expect(b.body.data.order_id).toBe(a.body.data.order_id);
    expect(await trust(u.user.id)).toEqual({ available: '1000', frozen: '1000' });
    const h1 = await house();
    expect(money(h0.available).minus(h1.available).toFixed()).toBe('60');
    expect(money(h1.frozen).minus(h0.frozen).toFixed()).toBe('60');
    const codes = await t.ds.query(`SELECT code FROM ledger_entries WHERE ref_type = 'wealth' AND ref_id = $1 ORDER BY id`, [a.body.data.order_id]);
    expect(codes.map((c: { code: number }) => c.code)).toEqual([40, 901]);
    const list = await get(u.token, 'lh/deposit/order', { status: 'hosting' });
    expect(list.body.data.items).toHaveLength(1);
    const report = await get(u.token, 'lh/deposit/report');
    expect(report.body.data).toMatchObject({ held: '1000', earned_total: '0', trust_available: '1000', hosting_orders: 1 });
    // An operator raises the minimum since: the retry still answers its order (regression: 2501 "below the minimum").
    expect((await post(admin, `admin/wealth/products/${d15.id}`, { min_amount: '5000', reason: 'raise' })).body.code).toBe(1);
    try {
      expect((await buy(u.token, d15.id, '1000', { client_id: 'w-1' })).body).toMatchObject({ code: 1, data: { order_id: a.body.data.order_id } });
    } finally {
      expect((await post(admin, `admin/wealth/products/${d15.id}`, { min_amount: d15.min_amount, reason: 'back' })).body.code).toBe(1);
    }
    expect(await trust(u.user.id)).toEqual({ available: '1000', frozen: '1000' });
  });

  it('a daily run in which an order fails brings the others up to date, then fails so that the queue runs it again; the rerun pays the rest once (regression: it succeeded, and the order waited for the next midnight)', async () => {
    const u = await investor('2000');
    const d7 = await product('hosting-7d');
    const [o1, o2] = [(await buy(u.token, d7.id, '1000')).body.data, (await buy(u.token, d7.id, '1000')).body.data];
    const day1 = new Date(new Date(o1.interest_start).getTime() + DAY + 60_000);
    const paid = async (id: string) => (await t.ds.query('SELECT paid_days FROM wealth_orders WHERE id = $1', [id]))[0].paid_days;
    const real = accrual.settle.bind(accrual);
    const blip = jest
      .spyOn(accrual, 'settle')
      .mockImplementation((id, now) => (id === o1.order_id ? Promise.reject(new Error('connection lost')) : real(id, now)));
    try {
      await expect(accrual.accrue(day1)).rejects.toThrow(/^1 of \d+ wealth orders could not be brought up to date/);
    } finally {
      blip.mockRestore();
    }
    expect([await paid(o1.order_id), await paid(o2.order_id)]).toEqual([0, 1]);
    await accrual.accrue(day1);
    expect([await paid(o1.order_id), await paid(o2.order_id)]).toEqual([1, 1]);
  });

  it('accrual over 30 simulated days pays exactly principal × 13.66 %, then returns the principal (41)', async () => {
    const u = await investor('1000');
    const d30 = await product('hosting-30d');
    const order = (await buy(u.token, d30.id, '1000')).body.data;
    const start = new Date(order.interest_start).getTime();
    for (let k = 1; k <= 30; k++) await accrual.accrue(new Date(start + k * DAY + 60_000)); // 00:01 UTC each day
    const done = (await get(u.token, 'lh/deposit/order', { status: 'completed' })).body.data.items;
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ order_id: order.order_id, earned: '136.6', paid_days: 30, status: 'completed' });
    expect(await trust(u.user.id)).toEqual({ available: '1136.6', frozen: '0' });
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_id = $1 AND code = 903 AND owner_type = 'user'`, [
      order.order_id,
    ]);
    expect(n).toBe(30);
    const [left] = await t.ds.query(`SELECT reserve::text FROM wealth_orders WHERE id = $1`, [order.order_id]);
    expect(moneyString(left.reserve)).toBe('0');
  });

  it('the job run twice on a day, or late after a 3-day pause, pays each day once (daily yield = principal × rate)', async () => {
    const u = await investor('1000');
    const d15 = await product('hosting-15d');
    const order = (await buy(u.token, d15.id, '1000')).body.data;
    const start = new Date(order.interest_start).getTime();
    const paid = async () => (await t.ds.query(`SELECT paid_days, earned::text FROM wealth_orders WHERE id = $1`, [order.order_id]))[0];
    await accrual.accrue(new Date(start + DAY));
    await accrual.accrue(new Date(start + DAY + 3_600_000));
    await Promise.all([accrual.accrue(new Date(start + DAY + 7_200_000)), accrual.accrue(new Date(start + DAY + 7_200_000))]);
    expect(await paid()).toEqual({ paid_days: 1, earned: '4.000000000000000000' });
    // Three days without a run, then one late run catches up all three.
    await accrual.accrue(new Date(start + 4 * DAY + 5 * 3_600_000));
    expect(await paid()).toEqual({ paid_days: 4, earned: '16.000000000000000000' });
    await accrual.accrue(new Date(start + 4 * DAY + 6 * 3_600_000));
    expect((await paid()).paid_days).toBe(4);
    const days = await t.ds.query(`SELECT e.command_id FROM events e WHERE e.command_id LIKE $1 ORDER BY e.command_id`, [
      `wealth-interest:${order.order_id}:%`,
    ]);
    expect(days.map((d: { command_id: string }) => d.command_id)).toEqual(
      [0, 1, 2, 3].map((k) => `wealth-interest:${order.order_id}:${epochDay(new Date(start)) + k}`).sort(),
    );
    expect((await get(u.token, 'lh/deposit/report')).body.data).toMatchObject({ held: '1000', earned_total: '16' });
  });

  it('early redemption: 0.4 % × 3 remaining days × 1,000 = 12, shown before confirming; unused reserve back to the treasury', async () => {
    const u = await investor('1000');
    const d15 = await product('hosting-15d');
    const order = (await buy(u.token, d15.id, '1000')).body.data;
    const start = new Date(order.interest_start).getTime();
    await accrual.accrue(new Date(start + 12 * DAY));
    const h0 = await house();
    const preview = await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id, preview: '1' });
    expect(preview.body.data).toMatchObject({ preview: true, remaining_days: 3, penalty: '12', refund: '988', earned: '48' });
    expect(await trust(u.user.id)).toEqual({ available: '48', frozen: '1000' }); // the preview changed nothing
    const done = await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id });
    expect(done.body).toMatchObject({ code: 1, message: 'Redeemed early', data: { preview: false, penalty: '12', refund: '988' } });
    expect(await trust(u.user.id)).toEqual({ available: '1036', frozen: '0' });
    const h1 = await house();
    // Penalty 12 to the house, the 12 unused interest reserve released.
    expect(money(h1.available).minus(h0.available).toFixed()).toBe('24');
    expect(money(h0.frozen).minus(h1.frozen).toFixed()).toBe('12');
    const redeemed = (await get(u.token, 'lh/deposit/order', { status: 'redeemed' })).body.data.items;
    expect(redeemed[0]).toMatchObject({ order_id: order.order_id, status: 'redeemed', penalty: '12', refund: '988' });
  });

  it('a retried redemption answers the first one with one posting, also when both arrive at once (regression: the retry answered 2506)', async () => {
    const u = await investor('2000');
    const d15 = await product('hosting-15d');
    const order = (await buy(u.token, d15.id, '1000')).body.data;
    await accrual.accrue(new Date(new Date(order.interest_start).getTime() + 12 * DAY));
    const first = await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id });
    expect(first.body).toMatchObject({ code: 1, data: { preview: false, remaining_days: 3, penalty: '12', refund: '988', order: { status: 'redeemed' } } });
    expect(first.body.data.duplicate).toBeUndefined();
    const h0 = await house();
    const again = await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id });
    expect(again.body.code).toBe(1);
    expect(again.body.data).toEqual({ ...first.body.data, duplicate: true });
    expect(await trust(u.user.id)).toEqual({ available: '2036', frozen: '0' });
    expect(await house()).toEqual(h0);
    // A preview of it has nothing left to show.
    expect((await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id, preview: '1' })).body.code).toBe(2506);
    // Two taps at once: one redemption, both answers it.
    const other = (await buy(u.token, d15.id, '1000')).body.data;
    const both = await Promise.all([1, 2].map(() => post(u.token, 'lh/deposit/cancel', { order_id: other.order_id })));
    expect(both.map((r) => r.body.code)).toEqual([1, 1]);
    expect(both.map((r) => r.body.data.duplicate ?? false).sort()).toEqual([false, true]);
    const { duplicate: _, ...stored } = both.find((r) => r.body.data.duplicate)!.body.data;
    expect(stored).toEqual(both.find((r) => !r.body.data.duplicate)!.body.data);
    for (const id of [order.order_id, other.order_id]) {
      const posted = await t.ds.query(`SELECT command_id FROM events WHERE command_id = $1`, [`wealth-redeem:${id}`]);
      expect(posted).toHaveLength(1);
    }
    expect(await trust(u.user.id)).toEqual({ available: '1976', frozen: '0' }); // 2036 − 1000 + 1000 − 60 (15 days × 0.4 %)
  });

  it('an early redemption of an order whose end has passed but that the daily job has not reached yet matures it, then answers 2506 (regression: the maturity was rolled back with the refusal)', async () => {
    const u = await investor('1000');
    const order = (await buy(u.token, (await product('hosting-15d')).id, '1000')).body.data;
    // Bought 16 days ago as far as the order knows: its end has passed, and no job has paid it.
    await t.ds.query(`UPDATE wealth_orders SET start_day = start_day - 16, end_at = end_at - interval '16 days' WHERE id = $1`, [order.order_id]);
    // The preview says what the real call will (regression: it showed an early-redemption penalty) and changes nothing.
    expect((await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id, preview: '1' })).body.code).toBe(2506);
    expect(await trust(u.user.id)).toEqual({ available: '0', frozen: '1000' });
    expect((await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id })).body).toMatchObject({
      code: 2506,
      message: 'This order is no longer in hosting',
    });
    // Closed by its maturity, not by the user: a second call is still 2506.
    expect((await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id })).body.code).toBe(2506);
    expect((await get(u.token, 'lh/deposit/order', { status: 'completed' })).body.data.items[0]).toMatchObject({
      order_id: order.order_id,
      paid_days: 15,
      earned: '60',
    });
    expect(await trust(u.user.id)).toEqual({ available: '1060', frozen: '0' });
  });

  it('the hosting tip: 1.5 × the daily interest (30-day product)', async () => {
    const u = await investor('1000');
    const order = (await buy(u.token, (await product('hosting-30d')).id, '1000')).body.data;
    const preview = await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id, preview: 'true' });
    expect(preview.body.data).toMatchObject({ penalty_mode: 'tip', daily_interest: '4.55333333', penalty: '6.82999999', refund: '993.17000001' });
    expect((await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id })).body.data.penalty).toBe('6.82999999');
    expect(await trust(u.user.id)).toEqual({ available: '993.17000001', frozen: '0' });
  });

  it('user B can neither see nor redeem A’s orders', async () => {
    const a = await investor('1000');
    const b = await investor('1000');
    const order = (await buy(a.token, (await product('hosting-7d')).id, '500')).body.data;
    expect((await get(b.token, 'lh/deposit/order', { status: 'hosting' })).body.data.items).toEqual([]);
    for (const body of [{ order_id: order.order_id, preview: '1' }, { order_id: order.order_id }])
      expect((await post(b.token, 'lh/deposit/cancel', body)).body).toMatchObject({ code: 2505, message: 'Order not found' });
    expect(await trust(a.user.id)).toEqual({ available: '500', frozen: '500' });
    expect((await get(null, 'lh/deposit/order')).body.code).toBe(401);
    expect((await post(b.token, 'lh/deposit/cancel', { order_id: 'abc' })).body).toMatchObject({ code: 1000, message: 'Order not found' });
    expect((await post(b.token, 'lh/deposit/cancel', {})).body).toMatchObject({ code: 1000, message: 'Order not found' });
  });

  it('a purchase that waits on its locks past the sale\'s end is refused (regression: the window was checked on the clock read before the wait)', async () => {
    const u = await investor('2000');
    const saleEnd = Date.now() + 1500;
    const id = (
      await post(admin, 'admin/wealth/products', {
        kind: 'fixed',
        code: 'ends-in-flight',
        name: 'Ends in flight',
        days: 5,
        min_amount: '100',
        rate: '0.003',
        capacity: '5000',
        sale_end: new Date(saleEnd).toISOString(),
        reason: 'short sale',
      })
    ).body.data.id;
    await inOpenTransaction(t.ds, async (other) => {
      // Another purchase, an option or a contract holds the treasury's row (every one of them locks it).
      await other.query(`SELECT 1 FROM balances WHERE owner_type = 'system' AND account_type = 'treasury' AND currency_id = 3 FOR UPDATE`);
      const bought = buy(u.token, id, '1000').then((r) => r);
      await new Promise((r) => setTimeout(r, Math.max(0, saleEnd - Date.now()) + 300));
      await other.commitTransaction();
      expect((await bought).body).toMatchObject({ code: 2502, message: 'This product is not on sale right now' });
    });
    expect(await trust(u.user.id)).toEqual({ available: '2000', frozen: '0' });
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM wealth_orders WHERE user_id = $1', [u.user.id]))[0].n).toBe(0);
  });

  it('a purchase while an operator edits the product is made on the edit once it commits (regression: on the rate read before, its reserve too)', async () => {
    const u = await investor('2000');
    const id = (
      await post(admin, 'admin/wealth/products', {
        kind: 'fixed',
        code: 'edited-meanwhile',
        name: 'Edited meanwhile',
        days: 5,
        min_amount: '100',
        rate: '0.003',
        capacity: '5000',
        reason: 'launch',
      })
    ).body.data.id;
    await inOpenTransaction(t.ds, async (operator) => {
      await operator.query('UPDATE wealth_products SET rate = 0.002 WHERE id = $1', [id]);
      const bought = buy(u.token, id, '1000').then((r) => r);
      await new Promise((r) => setTimeout(r, 500));
      await operator.commitTransaction();
      expect((await bought).body.data).toMatchObject({ daily_interest: '2', total_interest: '10' });
    });
    const [order] = await t.ds.query(
      'SELECT trim_scale(daily_interest)::text AS daily, trim_scale(reserve)::text AS reserve FROM wealth_orders WHERE user_id = $1',
      [u.user.id],
    );
    expect(order).toEqual({ daily: '2', reserve: '10' });
  });

  it('an operator edit changes only later purchases; capacity never below what is sold', async () => {
    const u = await investor('2000');
    const created = await post(admin, 'admin/wealth/products', {
      kind: 'fixed',
      code: 'editable',
      name: 'Editable',
      days: 5,
      min_amount: '100',
      rate: '0.002',
      capacity: '5000',
      reason: 'launch',
    });
    const id = created.body.data.id;
    const before = (await buy(u.token, id, '1000')).body.data;
    const edited = await post(admin, `admin/wealth/products/${id}`, { rate: '0.003', reason: 'better rate' });
    expect(edited.body).toMatchObject({ code: 1, message: 'Product saved', data: { daily_rate: '0.003' } });
    const after = (await buy(u.token, id, '1000')).body.data;
    expect([before.daily_interest, after.daily_interest]).toEqual(['2', '3']);
    expect((await post(admin, `admin/wealth/products/${id}`, { capacity: '1999', reason: 'shrink' })).body).toMatchObject({
      code: 2507,
      message: 'Product settings are invalid: capacity cannot go below what is sold (2000)',
    });
    expect(
      (
        await post(admin, 'admin/wealth/products', {
          kind: 'fixed',
          code: 'bad',
          name: 'Bad',
          days: 0,
          min_amount: '1',
          rate: '0.1',
          capacity: '1',
          reason: 'x',
        })
      ).body.code,
    ).toBe(2507);
    // A time the pattern lets through but the calendar has not is refused and stores nothing (regression: it answered 9000).
    for (const [field, value] of [
      ['sale_start', '2026-13-01T00:00Z'],
      ['sale_end', '2026-02-31T00:00:00Z'],
    ]) {
      expect((await post(admin, `admin/wealth/products/${id}`, { [field]: value, reason: 'typo' })).body).toMatchObject({
        code: 1000,
        message: `${field} is invalid`,
      });
    }
    const ev = await t.ds.query(`SELECT type, metadata->>'actor' AS actor, metadata->>'reason' AS reason FROM events WHERE stream_id = $1 ORDER BY seq`, [
      `wealth-product:${id}`,
    ]);
    expect(ev.map((e: { type: string; reason: string }) => [e.type, e.reason])).toEqual([
      ['WealthProductCreated', 'launch'],
      ['WealthProductEdited', 'better rate'],
    ]);
    expect(ev[0].actor).toMatch(/^admin:\d+$/);
  });

  it('purchases and early redemptions of one user at the same time never deadlock (found by the whole-venue simulation)', async () => {
    // A purchase posted the user's lock (trust) and then the treasury reserve, in two postings of
    // one transaction; a redemption (and the accrual job) locks the treasury, then the user's trust
    // (one posting, accounts in the global order): at once they deadlocked and the purchase
    // answered 500. Every answer must be the envelope with code 1.
    const u = await investor('100000');
    const d7 = await product('hosting-7d');
    const held: string[] = [];
    for (let i = 0; i < 12; i++) held.push((await buy(u.token, d7.id, '1000')).body.data.order_id);
    const answers = await Promise.all([
      ...held.map((id) => post(u.token, 'lh/deposit/cancel', { order_id: id })),
      ...held.map(() => buy(u.token, d7.id, '1000')),
    ]);
    expect(answers.map((r) => r.body.code)).toEqual(answers.map(() => 1));
  });

  it('30 concurrent purchases of the last capacity never oversell', async () => {
    const created = await post(admin, 'admin/wealth/products', {
      kind: 'mining',
      code: 'last-lot',
      name: 'Last lot',
      days: 10,
      min_amount: '100',
      rate: '0.004',
      penalty_mode: 'ratio',
      penalty_ratio: '0.004',
      capacity: '1000',
      reason: 'launch',
    });
    expect(created.body).toMatchObject({ code: 1, data: { status: 'in_progress', type: 2 } });
    const id = created.body.data.id;
    const buyers = await Promise.all([1, 2, 3].map(() => investor('1000')));
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => buy(buyers[i % 3].token, id, '100')));
    expect(answers.filter((x) => x.body.code === 1)).toHaveLength(10);
    expect(answers.filter((x) => x.body.code === 2503).map((x) => x.body.message)).toEqual(
      Array(20).fill('Not enough capacity left: at most 0 USDT can still be bought'),
    );
    const [p] = await t.ds.query(
      `SELECT sold::text, (SELECT COALESCE(SUM(amount), 0)::text FROM wealth_orders WHERE product_id = $1) AS orders FROM wealth_products WHERE id = $1`,
      [id],
    );
    expect(moneyString(p.sold)).toBe('1000');
    expect(moneyString(p.orders)).toBe('1000');
    expect((await products(2)).find((x) => x.id === id)?.status).toBe('sold_out');
    const frozen = await Promise.all(buyers.map((b) => trust(b.user.id)));
    expect(frozen.reduce((s, x) => s.plus(x.frozen), money(0)).toFixed()).toBe('1000');
  });

  it('a redeemed or matured order gives its principal back to the capacity (regression: sold only rose, so buying and redeeming closed a product for everyone)', async () => {
    const created = await post(admin, 'admin/wealth/products', {
      kind: 'fixed',
      code: 'refill',
      name: 'Refill',
      days: 2,
      min_amount: '100',
      rate: '0.001',
      capacity: '1000',
      reason: 'launch',
    });
    const id = created.body.data.id;
    const u = await investor('2000');
    const sold = async () => {
      const p = (await products(1)).find((x) => x.id === id)!;
      return [p.sold, p.status];
    };
    const first = (await buy(u.token, id, '1000')).body.data;
    expect(await sold()).toEqual(['1000', 'sold_out']);
    expect((await buy(u.token, id, '100')).body.code).toBe(2503);
    expect((await post(u.token, 'lh/deposit/cancel', { order_id: first.order_id })).body.code).toBe(1);
    expect(await sold()).toEqual(['0', 'in_progress']);
    const second = (await buy(u.token, id, '900')).body.data;
    expect(await sold()).toEqual(['900', 'rush']); // 10 % of the capacity left
    const start = new Date(second.interest_start).getTime();
    for (let k = 1; k <= 2; k++) await accrual.accrue(new Date(start + k * DAY + 60_000));
    expect((await get(u.token, 'lh/deposit/order', { status: 'completed' })).body.data.items[0]).toMatchObject({ order_id: second.order_id });
    expect(await sold()).toEqual(['0', 'in_progress']);
    // A retried purchase naming another product answers its own (regression: it showed the other's name).
    const third = (await buy(u.token, id, '100', { client_id: 'refill-1' })).body.data;
    const d7 = await product('hosting-7d');
    expect((await buy(u.token, d7.id, '100', { client_id: 'refill-1' })).body.data).toMatchObject({ order_id: third.order_id, name: 'Refill' });
    expect(await sold()).toEqual(['100', 'in_progress']);
  });

  it('concurrent tries of one client id naming two products buy once, and both answers show the product bought', async () => {
    const u = await investor('10000');
    const d7 = await product('hosting-7d');
    const d15 = await product('hosting-15d');
    // Several pairs, so at least one pair's later try passes its first look-up before the other commits.
    const pairs = await Promise.all(
      [1, 2, 3, 4].map((k) => Promise.all([buy(u.token, d7.id, '1000', { client_id: `pair-${k}` }), buy(u.token, d15.id, '1000', { client_id: `pair-${k}` })])),
    );
    for (const [a, b] of pairs) {
      expect([a.body.code, b.body.code]).toEqual([1, 1]);
      expect(b.body.data.order_id).toBe(a.body.data.order_id);
      const bought = a.body.data.product_id === d7.id ? d7 : d15;
      // Regression: the try that lost the race answered with the product it named, not the one bought.
      for (const x of [a, b]) expect(x.body.data).toMatchObject({ product_id: bought.id, name: bought.name, code: bought.code });
    }
    expect((await trust(u.user.id)).frozen).toBe('4000');
  });

  it('a double tap for the last of the capacity buys once and both answers are it (regression: the second heard "sold out")', async () => {
    const created = await post(admin, 'admin/wealth/products', {
      kind: 'mining',
      code: 'one-lot',
      name: 'One lot',
      days: 10,
      min_amount: '100',
      rate: '0.004',
      penalty_mode: 'ratio',
      penalty_ratio: '0.004',
      capacity: '100',
      reason: 'launch',
    });
    const u = await investor('1000');
    const both = await Promise.all([1, 2].map(() => buy(u.token, created.body.data.id, '100', { client_id: 'last-1' })));
    expect(both.map((x) => x.body.code)).toEqual([1, 1]);
    expect(both[0].body.data.id).toBe(both[1].body.data.id);
    expect((await trust(u.user.id)).frozen).toBe('100');
  });

  it('a product cannot be sold beyond what the treasury can reserve', async () => {
    const created = await post(admin, 'admin/wealth/products', {
      kind: 'fixed',
      code: 'too-generous',
      name: 'Too generous',
      days: 10,
      min_amount: '100',
      rate: '9',
      rate_mode: 'total',
      capacity: '100000000',
      reason: 'test',
    });
    const u = await investor('200000');
    const before = await counts();
    const h0 = await house();
    expect((await buy(u.token, created.body.data.id, '200000')).body).toMatchObject({ code: 2504 });
    expect(await counts()).toEqual(before);
    expect(await house()).toEqual(h0);
    expect(await trust(u.user.id)).toEqual({ available: '200000', frozen: '0' });
    const [p] = await t.ds.query(`SELECT sold::text FROM wealth_products WHERE id = $1`, [created.body.data.id]);
    expect(moneyString(p.sold)).toBe('0');
  });

  it('flexible fund: interest only from 10,000, from the next day; redemption is free and releases the reserve', async () => {
    const u = await investor('15000');
    const flex = await product('flexible');
    const small = (await buy(u.token, flex.id, '5000')).body.data;
    const big = (await buy(u.token, flex.id, '10000')).body.data;
    expect(small.daily_interest).toBe('0');
    expect(big.daily_interest).toBe('42');
    const start = new Date(big.interest_start).getTime();
    expect(start).toBe((epochDay(new Date()) + 1) * DAY);
    await accrual.accrue(new Date(start)); // the day of purchase earns nothing
    expect((await get(u.token, 'lh/deposit/report')).body.data.earned_total).toBe('0');
    await accrual.accrue(new Date(start + 3 * DAY));
    expect((await get(u.token, 'lh/deposit/report')).body.data).toMatchObject({ earned_total: '126', held: '15000' });
    const preview = await post(u.token, 'lh/deposit/cancel', { order_id: big.order_id, preview: '1' });
    expect(preview.body.data).toMatchObject({ penalty: '0', refund: '10000' });
    const h0 = await house();
    await post(u.token, 'lh/deposit/cancel', { order_id: big.order_id });
    await post(u.token, 'lh/deposit/cancel', { order_id: small.order_id });
    expect(await trust(u.user.id)).toEqual({ available: '15126', frozen: '0' });
    const h1 = await house();
    expect(h1.available).toBe(money(h0.available).plus(h0.frozen).minus(h1.frozen).toFixed());
  });

  /**
   * A fund at 10 % a day, one order whose 30-day reserve takes 3/4 of the treasury's float (its
   * next top-up can reserve only 10 days), bought 72 days ago as far as it knows: 71 days are due,
   * the reserve paid 30, the short top-up 10, and the other 31 wait. Then the operator funds the treasury.
   */
  async function waitingDays(code: string) {
    const created = await post(admin, 'admin/wealth/products', {
      kind: 'flexible',
      code,
      name: 'Thin float',
      days: 0,
      min_amount: '100',
      rate: '0.1',
      penalty_mode: 'none',
      capacity: '100000000',
      reason: 'test',
    });
    const h0 = await house();
    const amount = truncate(money(h0.available).div(4), 0); // daily = amount / 10, reserve = 3 × amount
    const daily = money(amount).div(10);
    const u = await investor(amount);
    const order = (await buy(u.token, created.body.data.id, amount)).body.data;
    expect(order.daily_interest).toBe(daily.toFixed());
    await t.ds.query(`UPDATE wealth_orders SET start_day = start_day - 72 WHERE id = $1`, [order.order_id]);
    const state = async () => (await t.ds.query(`SELECT paid_days, reserve::text FROM wealth_orders WHERE id = $1`, [order.order_id]))[0];
    await accrual.settle(order.order_id, new Date());
    expect(await state()).toMatchObject({ paid_days: 30 });
    expect(moneyString((await state()).reserve)).toBe('0');
    // The next run tops up the 10 whole days the treasury still has (regression: a treasury short of
    // the whole window reserved none): they are paid, and the other 31 days wait.
    expect(money(h0.available).minus(daily.times(30)).div(daily).floor().toNumber()).toBe(10);
    await accrual.settle(order.order_id, new Date());
    expect(await state()).toMatchObject({ paid_days: 40 });
    expect(moneyString((await state()).reserve)).toBe('0');
    await accrual.settle(order.order_id, new Date());
    expect((await state()).paid_days).toBe(40);
    // The operator funds the treasury; the user redeems before the next daily run.
    expect((await post(admin, 'admin/treasury/fund', { currency_id: USDT, amount: h0.available, reason: 'refill' })).body.code).toBe(1);
    return { u, order, amount, daily, h0, state };
  }

  it('flexible fund: days that waited for a short treasury are paid by a redemption after the operator funds it (regression: they were dropped)', async () => {
    const { u, order, amount, daily, h0 } = await waitingDays('thin-float');
    const done = await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id });
    const earned = daily.times(71).toFixed();
    expect(done.body).toMatchObject({ code: 1, data: { penalty: '0', refund: amount, earned, order: { status: 'redeemed', paid_days: 71 } } });
    expect(await trust(u.user.id)).toEqual({ available: money(amount).plus(earned).toFixed(), frozen: '0' });
    const [{ n }] = await t.ds.query(`SELECT COUNT(*)::int AS n FROM events WHERE command_id LIKE $1`, [`wealth-interest:${order.order_id}:%`]);
    expect(n).toBe(71);
    // Every reserve released: the treasury paid the 71 days and nothing else.
    const h1 = await house();
    expect(h1.frozen).toBe(h0.frozen);
    expect(h1.available).toBe(money(h0.available).times(2).minus(earned).toFixed());
  });

  it('flexible fund: a daily top-up committed between the redemption reading the order and topping it up still pays every waiting day (regression: the redemption top-up was skipped and 1 day lost)', async () => {
    const { u, order, amount, daily, h0, state } = await waitingDays('thin-float-race');
    // The daily job's top-up (30 days of the 31 waiting) lands after the redemption read the order
    // (reserve 0, 40 paid days), before the redemption's own top-up takes the order's lock.
    const real = accrual.topUpOwed.bind(accrual);
    const spy = jest.spyOn(accrual, 'topUpOwed').mockImplementationOnce(async (o, now) => {
      expect(moneyString(o.reserve)).toBe('0');
      await accrual['topUp'](o, now);
      expect(moneyString((await state()).reserve)).toBe(daily.times(30).toFixed());
      return real(o, now);
    });
    try {
      const done = await post(u.token, 'lh/deposit/cancel', { order_id: order.order_id });
      expect(spy).toHaveBeenCalledTimes(1);
      const earned = daily.times(71).toFixed();
      expect(done.body).toMatchObject({ code: 1, data: { penalty: '0', refund: amount, earned, order: { status: 'redeemed', paid_days: 71 } } });
      expect(await trust(u.user.id)).toEqual({ available: money(amount).plus(earned).toFixed(), frozen: '0' });
    } finally {
      spy.mockRestore();
    }
    // The short one at 30 paid days (10 days), then two at 40: the daily one (30 days) and the redemption's (the 1 day left).
    const day = epochDay(new Date());
    const topUps = await t.ds.query(`SELECT command_id FROM events WHERE command_id LIKE $1 ORDER BY seq`, [`wealth-topup:${order.order_id}:%`]);
    expect(topUps.map((r: { command_id: string }) => r.command_id)).toEqual([
      `wealth-topup:${order.order_id}:${day}:30`,
      `wealth-topup:${order.order_id}:${day}:40`,
      `wealth-topup:${order.order_id}:${day}:40:redeem`,
    ]);
    const h1 = await house();
    expect(h1.frozen).toBe(h0.frozen);
    expect(h1.available).toBe(money(h0.available).times(2).minus(daily.times(71)).toFixed());
  });
});
