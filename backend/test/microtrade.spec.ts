import { EngineBus } from '../src/modules/engine/engine-bus';
import { TrialBalanceService } from '../src/modules/ledger/trial-balance.service';
import { money, moneyString } from '../src/infra/money';
import { LeverPosition } from '../src/modules/lever/lever-position.entity';
import { LeverWatchService } from '../src/modules/lever/lever-watch.service';
import { LeverService } from '../src/modules/lever/lever.service';
import { MicrotradeService } from '../src/modules/microtrade/microtrade.service';
import { OptionDeliveryService, STRANDED_AFTER_MS, tickDueBy } from '../src/modules/microtrade/option-delivery.service';
import { adminToken, registerByEmail, setFundPassword, verifyBasic } from './support/accounts';
import { coinBalance, deposit, spotTrader } from './support/funding';
import { tickRecorder } from './support/mark-prices';
import { inOpenTransaction } from './support/open-transaction';
import { ADMIN, startTestApp, TestApp } from './support/test-app';

const USDT = 3;
const BTC_MARKET = 1;
const ETH_MARKET = 2;

// The test records the mark-price ticks itself (the sampler is off), so every price is known.
process.env.MARK_PRICE = 'off';

describe('options: honest delivery on recorded ticks (real PostgreSQL + Redis + BullMQ)', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startTestApp({ flashExchange: { feeRate: '0.002', quoteTtlSeconds: 15, float: { USDT: '1000000' } } });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
  });
  afterAll(() => t.close());
  afterEach(async () => expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true));

  const tick = async (price: string, at = new Date()) =>
    (await t.ds.query('INSERT INTO mark_prices (market_id, price, ts) VALUES ($1, $2, $3) RETURNING id::text', [BTC_MARKET, price, at]))[0].id as string;
  const optionBalance = async (userId: number) =>
    moneyString(
      (
        await t.ds.query(`SELECT available::text FROM balances WHERE owner_type = 'user' AND owner_id = $1 AND account_type = 'option' AND currency_id = 3`, [
          userId,
        ])
      )[0]?.available ?? '0',
    );
  const periods = async () => (await t.http().get('/api/microtrade/seconds')).body.data as Array<{ id: number; seconds: number; profit_ratio: string }>;
  const buy = (token: string, body: Record<string, unknown>) =>
    t
      .http()
      .post('/api/microtrade/submit')
      .set('Authorization', token)
      .type('form')
      .send({ symbol: 'BTC/USDT', ...body });

  async function trader(usdt = '1000', verified = true, fundPassword = true) {
    const u = await registerByEmail(t);
    if (fundPassword) await setFundPassword(t, u);
    if (verified) await verifyBasic(t, u, admin);
    await deposit(t, u.user.id, USDT, usdt);
    const moved = await t
      .http()
      .post('/api/wallet/change')
      .set('Authorization', u.token)
      .type('form')
      .send({ from: 'coin', to: 'option', currency_id: USDT, amount: usdt });
    expect(moved.body.code).toBe(1);
    return u;
  }

  it('the spec prompts, in order, each changing nothing', async () => {
    await tick('60000');
    const [p30] = await periods();
    expect(p30).toMatchObject({ seconds: 30, profit_ratio: '0.2', min_qty: '10', max_qty: '10000' });
    const unverified = await trader('100', false);
    const u = await trader('100');
    const entries = async () => (await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n;
    const before = await entries();
    expect((await buy(u.token, { direction: 'up', quantity: '20' })).body.message).toBe('Choose the delivery time first');
    expect((await buy(u.token, { direction: 'up', period_id: p30.id })).body.message).toBe('Quantity is empty');
    expect((await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '5' })).body).toMatchObject({
      code: 2401,
      message: 'Quantity must be between 10 and 10000',
    });
    expect((await buy(u.token, { direction: 'sideways', period_id: p30.id, quantity: '20' })).body.message).toBe('Choose up or down');
    expect((await buy(unverified.token, { direction: 'up', period_id: p30.id, quantity: '20' })).body).toMatchObject({
      code: 2402,
      message: 'Your account is not verified. Go and verify?',
      data: { verify: true },
    });
    expect((await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '100.01' })).body).toMatchObject({
      code: 2000,
      message: 'Insufficient balance',
    });
    expect(await entries()).toBe(before);
    // Spec §6: trading needs a fund password first.
    const without = await trader('100', true, false);
    const withoutBefore = await entries();
    expect((await buy(without.token, { direction: 'up', period_id: p30.id, quantity: '20' })).body).toMatchObject({
      code: 2100,
      message: 'Set the fund password first for fund safety',
    });
    expect(await entries()).toBe(withoutBefore);
  });

  it('settles on the first sampled tick at or after delivery: higher → up, lower → down, equal → flat', async () => {
    await tick('60000');
    const [p30] = await periods();
    const u = await trader('1000');
    const orders: Record<string, string> = {};
    for (const [name, direction] of [
      ['upWins', 'up'],
      ['downLoses', 'down'],
    ] as const) {
      const r = await buy(u.token, { direction, period_id: p30.id, quantity: '100' });
      expect(r.body).toMatchObject({ code: 1, data: { open_price: '60000', status: 'pending', quantity: '100' } });
      orders[name] = r.body.data.order_id;
    }
    expect(await optionBalance(u.user.id)).toBe('800');
    // Each order is due 30 s after its own purchase (milliseconds apart, more on a busy machine): the
    // ticks go after the later one, so both orders' first tick at or after delivery is the same.
    const due = await t.ds.query('SELECT deliver_at FROM option_orders WHERE id = ANY($1)', [[orders.upWins, orders.downLoses]]);
    const deliverAt = Math.max(...due.map((o: { deliver_at: Date }) => new Date(o.deliver_at).getTime()));
    const first = await tick('60000.01', new Date(deliverAt + 100));
    await tick('1', new Date(deliverAt + 900)); // later ticks do not matter
    await t.app.get(OptionDeliveryService).deliverDue(new Date(deliverAt + 2000));
    const lists = (await t.http().get('/api/microtrade/lists').set('Authorization', u.token).query({ status: 'delivered' })).body.data.items;
    const byId = new Map(lists.map((x: { order_id: string }) => [x.order_id, x]));
    expect(byId.get(orders.upWins)).toMatchObject({ result: 'up', delivery_price: '60000.01', delivery_tick_id: first, payout: '120', pnl: '20' });
    expect(byId.get(orders.downLoses)).toMatchObject({ result: 'up', payout: '0', pnl: '-100' });
    expect(await optionBalance(u.user.id)).toBe('920');

    // Equal → flat: the stake comes back.
    await tick('61000');
    const flat = (await buy(u.token, { direction: 'down', period_id: p30.id, quantity: '50' })).body.data;
    const d2 = new Date(flat.deliver_at).getTime();
    await tick('61000', new Date(d2));
    await t.app.get(OptionDeliveryService).deliverDue(new Date(d2 + 1000));
    const audit = (await t.http().get('/api/microtrade/ticks').query({ order_id: flat.order_id })).body.data;
    expect(audit).toMatchObject({ result: 'flat', open_tick: { price: '61000' }, delivery_tick: { price: '61000' } });
    expect(audit.ticks.length).toBeGreaterThanOrEqual(2);
    expect(await optionBalance(u.user.id)).toBe('920');
    const codes = await t.ds.query(`SELECT DISTINCT code FROM ledger_entries WHERE ref_type = 'option' AND owner_type = 'user' ORDER BY code`);
    expect(codes.map((c: { code: number }) => c.code)).toEqual([400, 402]);
  });

  it("delivers on the first sampled tick: a tick recorded by a deal just after the delivery time does not count (regression: a purchase could record one at a moment of the buyer's choosing)", async () => {
    await t.ds.query('DELETE FROM mark_prices WHERE ts > now()'); // the earlier tests' delivery ticks, stamped ahead
    await tick('60000');
    const [p30] = await periods();
    const u = await trader('1000');
    const order = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '100' })).body.data;
    const deliverAt = new Date(order.deliver_at).getTime();
    const dealt = (
      await t.ds.query(`INSERT INTO mark_prices (market_id, price, ts, source) VALUES ($1, '60500', $2, 'deal') RETURNING id::text`, [
        BTC_MARKET,
        new Date(deliverAt + 100),
      ])
    )[0].id;
    const sampled = await tick('59000', new Date(deliverAt + 800));
    await t.app.get(OptionDeliveryService).deliverDue(new Date(deliverAt + 2000));
    const audit = (await t.http().get('/api/microtrade/ticks').query({ order_id: order.order_id })).body.data;
    expect(audit).toMatchObject({ result: 'down', delivery_tick: { id: sampled, price: '59000' } });
    expect(audit.ticks.find((x: { id: string }) => x.id === dealt)).toMatchObject({ source: 'deal', price: '60500' });
    expect(audit.ticks.find((x: { id: string }) => x.id === sampled)).toMatchObject({ source: 'sample' });
  });

  it('the audit lists the ticks from the delivery time on even when more than 5,000 came before it, and says the list is cut (regression: it stopped at 5,000 from the open, short of the delivery)', async () => {
    await t.ds.query('DELETE FROM mark_prices WHERE ts > now()'); // the earlier tests' delivery ticks, stamped ahead
    await tick('60000');
    const [p30] = await periods();
    const u = await trader('1000');
    const order = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '10' })).body.data;
    const deliverAt = new Date(order.deliver_at).getTime();
    // 5,001 deals' ticks before the delivery time (a busy market, or a long period's samples).
    await t.ds.query(
      `INSERT INTO mark_prices (market_id, price, ts, source)
       SELECT $1, 60000, to_timestamp(($2::bigint - 20000 + g)::double precision / 1000), 'deal' FROM generate_series(1, 5001) g`,
      [BTC_MARKET, deliverAt],
    );
    const delivery = await tick('60001', new Date(deliverAt + 200));
    await t.app.get(OptionDeliveryService).deliverDue(new Date(deliverAt + 2000));
    const audit = (await t.http().get('/api/microtrade/ticks').query({ order_id: order.order_id })).body.data;
    expect(audit).toMatchObject({ result: 'up', delivery_tick: { id: delivery }, ticks_complete: false, delivery_ticks_complete: true });
    expect(audit.ticks).toHaveLength(5001);
    expect(audit.ticks.at(-1)).toMatchObject({ id: delivery, source: 'sample' });
    await t.ds.query(`DELETE FROM mark_prices WHERE market_id = $1 AND source = 'deal' AND price = 60000`, [BTC_MARKET]);
  });

  it('an option whose delivery sample comes more than 5 s late is void and its stake returned (sampling paused: whoever runs it cannot choose the price by choosing when it resumes)', async () => {
    await t.ds.query('DELETE FROM mark_prices WHERE ts > now()'); // the earlier tests' delivery ticks, stamped ahead
    await tick('60000');
    const [p30] = await periods();
    const u = await trader('1000');
    const late = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '100' })).body.data;
    const onTime = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '100' })).body.data;
    const dA = new Date(late.deliver_at).getTime();
    await t.ds.query('UPDATE option_orders SET deliver_at = $2 WHERE id = $1', [onTime.order_id, new Date(dA + 1000)]);
    const before = await optionBalance(u.user.id);
    // Sampling resumes 6 s after the first option's delivery time: 6 s late for it, exactly 5 s (the bound, allowed) for the second.
    const resumed = await tick('70000', new Date(dA + 6000));
    await t.app.get(OptionDeliveryService).deliverDue(new Date(dA + 7000));
    const byId = new Map(
      (await t.http().get('/api/microtrade/lists').set('Authorization', u.token).query({ status: 'delivered' })).body.data.items.map(
        (o: { order_id: string }) => [o.order_id, o],
      ),
    );
    expect(byId.get(late.order_id)).toMatchObject({ result: 'void', delivery_tick_id: resumed, payout: '100', pnl: '0' });
    const won = byId.get(onTime.order_id) as { payout: string };
    expect(byId.get(onTime.order_id)).toMatchObject({ result: 'up', delivery_tick_id: resumed });
    expect(await optionBalance(u.user.id)).toBe(moneyString(money(before).plus(100).plus(won.payout)));
    const audit = (await t.http().get('/api/microtrade/ticks').query({ order_id: late.order_id })).body.data;
    expect(audit).toMatchObject({ result: 'void', void_after_ms: 5000, delivery_tick: { id: resumed, price: '70000' } });
    expect(audit.rule).toMatch(/void if the delivery tick is more than void_after_ms after deliver_at/);
    // The owner is told it was void, not that it was delivered at the late price.
    const notices = (await t.http().get('/api/notice/list').set('Authorization', u.token)).body.data.items as Array<{
      kind: string;
      content: string;
      ref: string;
    }>;
    expect(notices.find((n) => n.ref === `option:${late.order_id}`)).toMatchObject({
      kind: 'option_void',
      content: 'Your BTC/USDT option of 100 USDT is void: no price was sampled within 5 s of its delivery time, so the stake of 100 USDT was returned',
    });
    expect(notices.find((n) => n.ref === `option:${onTime.order_id}`)).toMatchObject({ kind: 'option_settled' });
    // An option delivered before the bound existed (void_after_ms null) is audited without it: never void.
    await t.ds.query('UPDATE option_orders SET void_after_ms = NULL WHERE id = $1', [onTime.order_id]);
    expect((await t.http().get('/api/microtrade/ticks').query({ order_id: onTime.order_id })).body.data).toMatchObject({ result: 'up', void_after_ms: null });
    await t.ds.query('DELETE FROM mark_prices WHERE ts > now()'); // its delivery tick, stamped ahead, is no later test's
  });

  it('an option no sample ever comes for (its market no longer sampled) is void without a delivery tick once STRANDED_AFTER_MS has passed, its stake returned; before that it waits', async () => {
    await t.ds.query('DELETE FROM mark_prices WHERE ts > now()');
    await tick('60000');
    const [p30] = await periods();
    const u = await trader('1000');
    const o = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '100' })).body.data;
    const due = new Date(o.deliver_at).getTime();
    const before = await optionBalance(u.user.id);
    const delivery = t.app.get(OptionDeliveryService);
    // No sample at or after its delivery time (a deal's tick does not deliver): it waits (the job retries), also past the late bound.
    const dealt = (
      await t.ds.query(`INSERT INTO mark_prices (market_id, price, ts, source) VALUES ($1, '61000', $2, 'deal') RETURNING id::text`, [
        BTC_MARKET,
        new Date(due + 10_000),
      ])
    )[0].id;
    await expect(delivery.deliverDue(new Date(due + 2000))).rejects.toThrow('wait for their delivery tick');
    await expect(delivery.deliverDue(new Date(due + STRANDED_AFTER_MS - 1000))).rejects.toThrow('wait for their delivery tick');
    expect((await t.ds.query('SELECT status FROM option_orders WHERE id = $1', [o.order_id]))[0].status).toBe('pending');
    // Long past it: void, no delivery tick, the stake back and the house's reserve released.
    await delivery.deliverDue(new Date(due + STRANDED_AFTER_MS + 1000));
    const [view] = (await t.http().get('/api/microtrade/lists').set('Authorization', u.token).query({ status: 'delivered' })).body.data.items.filter(
      (x: { order_id: string }) => x.order_id === o.order_id,
    );
    expect(view).toMatchObject({ status: 'delivered', result: 'void', delivery_tick_id: null, delivery_price: null, payout: '100', pnl: '0' });
    expect(await optionBalance(u.user.id)).toBe(moneyString(money(before).plus(100)));
    const audit = (await t.http().get('/api/microtrade/ticks').query({ order_id: o.order_id })).body.data;
    expect(audit).toMatchObject({ result: 'void', delivery_tick: null, stranded_after_ms: STRANDED_AFTER_MS });
    // Its trail runs to STRANDED_AFTER_MS after the delivery time: a tick recorded by a deal then is listed (and delivers nothing).
    expect(audit.ticks.map((k: { id: string }) => k.id)).toContain(dealt);
    // A second run pays nothing more.
    await delivery.deliverDue(new Date(due + STRANDED_AFTER_MS + 2000));
    expect(await optionBalance(u.user.id)).toBe(moneyString(money(before).plus(100)));
  });

  it('a duplicated or retried delivery pays once; a crash between paying and pushing pays once and pushes later', async () => {
    await tick('50000');
    const [p30] = await periods();
    const u = await trader('500');
    const o = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '100' })).body.data;
    const due = new Date(o.deliver_at).getTime();
    await tick('50001', new Date(due + 10));
    const delivery = t.app.get(OptionDeliveryService);
    const bus = t.app.get(EngineBus);
    const emit = bus.emit.bind(bus) as (...a: unknown[]) => boolean;
    let crashed = false;
    const spy = jest.spyOn(bus, 'emit').mockImplementation((event, ...args) => {
      if (event === 'option' && !crashed) {
        crashed = true;
        throw new Error('worker killed before the push');
      }
      return emit(event, ...args);
    });
    try {
      await expect(delivery.deliverDue(new Date(due + 1000))).rejects.toThrow('worker killed');
      expect(await optionBalance(u.user.id)).toBe('520'); // paid
      await Promise.all([delivery.deliverDue(new Date(due + 1000)), delivery.deliverDue(new Date(due + 1000))]);
    } finally {
      spy.mockRestore();
    }
    expect(await optionBalance(u.user.id)).toBe('520');
    const [{ n }] = await t.ds.query(
      `SELECT COUNT(*)::int AS n FROM ledger_entries WHERE ref_type = 'option' AND ref_id = $1 AND code = 402 AND owner_type = 'user'`,
      [o.order_id],
    );
    expect(n).toBe(1);
    const [row] = await t.ds.query('SELECT pushed_at FROM option_orders WHERE id = $1', [o.order_id]);
    expect(row.pushed_at).not.toBeNull();
  });

  // Found by `npm run test:chaos` (5,000 jobs into the delivery queue under a steady option flow):
  // every job waited for the option due that very moment, whose tick was not recorded yet, failed
  // and was retried.
  it("a delivery job waits only for its own second's ticks, not for an option due after it", async () => {
    await tick('62000');
    const [p30] = await periods();
    const u = await trader('100');
    const a = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '10' })).body.data;
    const b = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '10' })).body.data;
    const dA = new Date(a.deliver_at).getTime();
    // b falls due 3 s after a; its tick is not recorded yet.
    await t.ds.query('UPDATE option_orders SET deliver_at = $2 WHERE id = $1', [b.order_id, new Date(dA + 3000)]);
    await tick('62001', new Date(dA + 100));
    const delivery = t.app.get(OptionDeliveryService);
    const status = async () =>
      (await t.ds.query('SELECT status FROM option_orders WHERE id = ANY($1::bigint[]) ORDER BY id', [[a.order_id, b.order_id]])).map(
        (r: { status: string }) => r.status,
      );
    // The job of a's second completes; b is left to its own job.
    await expect(delivery.deliverDue(new Date(dA + 3500), tickDueBy({ name: 'deliver', data: { second: Math.floor(dA / 1000) } }))).resolves.toBeDefined();
    expect(await status()).toEqual(['delivered', 'pending']);
    // The job of b's second waits for b's tick (BullMQ retries it), then settles b.
    const jobB = { name: 'deliver', data: { second: Math.floor((dA + 3000) / 1000) } };
    await expect(delivery.deliverDue(new Date(dA + 3500), tickDueBy(jobB))).rejects.toThrow('wait for their delivery tick');
    await tick('62002', new Date(dA + 3100));
    await delivery.deliverDue(new Date(dA + 4500), tickDueBy(jobB));
    expect(await status()).toEqual(['delivered', 'delivered']);
    // A sweep waits only for options due more than its grace ago.
    expect(tickDueBy({ name: 'sweep', data: {} }, dA).getTime()).toBe(dA - 2200);
  });

  it('a purchase sent twice at the same moment with one client id buys once; both answers are it', async () => {
    await tick('60000');
    const u = await trader('100');
    const [p30] = await periods();
    const both = await Promise.all([1, 2].map(() => buy(u.token, { direction: 'up', period_id: p30.id, quantity: '10', client_id: 'same-1' })));
    expect(both.map((r) => r.body.code)).toEqual([1, 1]);
    expect(both[0].body.data.order_id).toBe(both[1].body.data.order_id);
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM option_orders WHERE user_id = $1', [u.user.id]))[0].n).toBe(1);
    expect(await optionBalance(u.user.id)).toBe('90');
    // A later retry is answered with it too, before any check of the moment (regression: with the
    // delivery time since disabled, or the house's capacity since taken, the retry heard 2400 or 2403).
    await t.ds.query('UPDATE option_periods SET enabled = false WHERE id = $1', [p30.id]);
    try {
      const later = await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '10', client_id: 'same-1' });
      expect(later.body).toMatchObject({ code: 1, data: { order_id: both[0].body.data.order_id } });
    } finally {
      await t.ds.query('UPDATE option_periods SET enabled = true WHERE id = $1', [p30.id]);
    }
    expect(await optionBalance(u.user.id)).toBe('90');
  });

  it('a purchase whose delivery job cannot be queued (Redis down) still answers that it was bought, and is delivered when due by its sweep (regression: it answered an error after the money had moved)', async () => {
    await tick('60000');
    const u = await trader('100');
    const [p30] = await periods();
    const delivery = t.app.get(OptionDeliveryService);
    const queue = (delivery as unknown as { queue: { add: (...a: unknown[]) => Promise<unknown> } }).queue;
    const add = queue.add;
    queue.add = () => Promise.reject(new Error('Connection is closed.'));
    let bought;
    try {
      bought = await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '10' });
    } finally {
      queue.add = add;
    }
    expect(bought.body).toMatchObject({ code: 1, data: { status: 'pending' } });
    expect(await optionBalance(u.user.id)).toBe('90');
    await tick('60001', new Date(new Date(bought.body.data.deliver_at).getTime() + 50));
    await delivery.deliverDue(new Date(new Date(bought.body.data.deliver_at).getTime() + 2000));
    const [o] = (await t.http().get('/api/microtrade/lists').set('Authorization', u.token).query({ status: 'delivered' })).body.data.items;
    expect(o).toMatchObject({ order_id: bought.body.data.order_id, result: 'up' });
  });

  it('the BullMQ job delivers by itself at the delivery time', async () => {
    const set = await t
      .http()
      .post('/api/admin/option-periods')
      .set('Authorization', admin)
      .type('form')
      .send({ seconds: 5, profit_ratio: '0.1', min_qty: '10', max_qty: '1000', reason: 'short test period' });
    expect(set.body.code).toBe(1);
    await tick('70000');
    const u = await trader('100');
    const o = (await buy(u.token, { direction: 'down', period_id: set.body.data.id, quantity: '10' })).body.data;
    await tick('69999', new Date(new Date(o.deliver_at).getTime() + 50));
    let delivered: { result: string; payout: string } | undefined;
    for (let i = 0; i < 40 && !delivered; i++) {
      await new Promise((r) => setTimeout(r, 250));
      delivered = (await t.http().get('/api/microtrade/lists').set('Authorization', u.token).query({ status: 'delivered' })).body.data.items[0];
    }
    expect(delivered).toMatchObject({ result: 'down', payout: '11' });
  });

  it('a seeded random run of 1,000 option purchases and deliveries keeps the trial balance exact', async () => {
    const options = t.app.get(MicrotradeService);
    const delivery = t.app.get(OptionDeliveryService);
    const all = await periods();
    let seed = 4242;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const users = await Promise.all(Array.from({ length: 10 }, () => trader('100000')));
    let price = 60000;
    await tick(String(price));
    let bought = 0;
    for (let i = 0; i < 1000; i++) {
      const u = users[Math.floor(rand() * users.length)];
      const p = all[Math.floor(rand() * all.length)];
      if (i % 50 === 0) {
        price = Math.max(1, price + Math.round((rand() - 0.5) * 200));
        await tick(String(price));
      }
      const r = await options
        .submit(u.user.id, { symbol: 'BTC/USDT', direction: rand() < 0.5 ? 'up' : 'down', period_id: p.id, quantity: String(10 + Math.floor(rand() * 500)) })
        .then(
          () => true,
          () => false,
        );
      if (r) bought++;
    }
    expect(bought).toBe(1000);
    // Every delivery tick: a random walk in the future, then one delivery run for all of them.
    const horizon = Date.now() + 400_000;
    for (let ts = Date.now(); ts < horizon; ts += 7000) {
      price = Math.max(1, price + Math.round((rand() - 0.5) * 50));
      await tick(String(price), new Date(ts));
    }
    // (The background worker may deliver some of them first, on the same ticks: either way, once.)
    await delivery.deliverDue(new Date(horizon));
    const [{ delivered }] = await t.ds.query(`SELECT COUNT(*)::int AS delivered FROM option_orders WHERE user_id = ANY($1) AND status = 'delivered'`, [
      users.map((u) => u.user.id),
    ]);
    expect(delivered).toBe(1000);
    const tb = await t.app.get(TrialBalanceService).compute();
    expect(tb.ok).toBe(true);
    const [{ pending }] = await t.ds.query(`SELECT COUNT(*)::int AS pending FROM option_orders WHERE status = 'pending'`);
    expect(pending).toBe(0);
    const [{ reserved }] = await t.ds.query(
      `SELECT frozen::text AS reserved FROM balances WHERE owner_type = 'system' AND account_type = 'treasury' AND currency_id = 3`,
    );
    expect(moneyString(reserved)).toBe('0');
    for (const u of users) expect((await coinBalance(t, u.user.id, USDT)).frozen).toBe('0');
    // Its delivery ticks lie up to 400 s ahead, which no real tick does: gone once they are used, so
    // that one the clock reaches later is not a later test's "latest recorded tick".
    await t.ds.query('DELETE FROM mark_prices WHERE market_id = $1 AND ts > now()', [BTC_MARKET]);
  });
  // Last: it leaves the live price at 61,000 for the rest of this app.
  it('a purchase opens at the price now: when the market traded away from the last recorded tick, that price is recorded first', async () => {
    const recorded = await tick('60000');
    // A trade at 61,000 (the live feed shows it at once; the sampler would record it within a second).
    const seller = await spotTrader(t, 1, '1');
    const buyer = await spotTrader(t, USDT, '1000');
    const spot = (token: string, body: Record<string, string>) =>
      t
        .http()
        .post('/api/coin/trade')
        .set('Authorization', token)
        .type('form')
        .send({ symbol: 'BTC/USDT', ...body });
    expect((await spot(seller.token, { side: 'sell', type: 'limit', price: '61000', quantity: '0.001' })).body.code).toBe(1);
    expect((await spot(buyer.token, { side: 'buy', type: 'limit', price: '61000', quantity: '0.001' })).body.data.status).toBe('completed');
    const u = await trader('100');
    const [p30] = await periods();
    const bought = (await buy(u.token, { direction: 'up', period_id: p30.id, quantity: '10' })).body.data;
    expect(bought.open_price).toBe('61000');
    expect(BigInt(bought.open_tick_id)).toBeGreaterThan(BigInt(recorded));
    const [row] = await t.ds.query('SELECT price::text FROM mark_prices WHERE id = $1', [bought.open_tick_id]);
    expect(moneyString(row.price)).toBe('61000');
    // No move since: the next purchase opens on that same recorded tick (nothing new recorded).
    expect((await buy(u.token, { direction: 'down', period_id: p30.id, quantity: '10' })).body.data.open_tick_id).toBe(bought.open_tick_id);
  });

  it('no purchase while the price is not sampled, even with fresh ticks recorded by deals: it could only end void, its fee kept (2211, nothing moves)', async () => {
    const u = await trader('100');
    const [p30] = await periods();
    // ETH/USDT: no other test records its ticks. A sample 6 s old, and a deal's tick now.
    const record = (source: string, ageMs: number) =>
      t.ds.query('INSERT INTO mark_prices (market_id, price, ts, source) VALUES ($1, $2, $3, $4)', [ETH_MARKET, '3000', new Date(Date.now() - ageMs), source]);
    await record('sample', 6000);
    await record('deal', 0);
    const entries = async () => (await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n;
    const before = await entries();
    const eth = { symbol: 'ETH/USDT', direction: 'up', period_id: p30.id, quantity: '10' };
    expect((await buy(u.token, eth)).body).toMatchObject({ code: 2211 });
    expect(await entries()).toBe(before);
    expect(await optionBalance(u.user.id)).toBe('100');
    await record('sample', 0);
    expect((await buy(u.token, eth)).body.code).toBe(1);
  });

  it('a purchase while an operator disables its period waits for that change and is refused with 2400 (regression: it read the period before and was bought on a disabled one)', async () => {
    await tick('60000');
    const u = await trader('100');
    const [p30] = await periods();
    const entries = async () => (await t.ds.query('SELECT COUNT(*)::int AS n FROM option_orders WHERE user_id = $1', [u.user.id]))[0].n;
    await inOpenTransaction(t.ds, async (operator) => {
      await operator.query('UPDATE option_periods SET enabled = false WHERE id = $1', [p30.id]);
      const bought = buy(u.token, { direction: 'up', period_id: p30.id, quantity: '10' }).then((r) => r);
      await new Promise((r) => setTimeout(r, 500));
      await operator.commitTransaction();
      expect((await bought).body.code).toBe(2400);
    });
    expect(await entries()).toBe(0);
    expect(await optionBalance(u.user.id)).toBe('100');
    await t.ds.query('UPDATE option_periods SET enabled = true WHERE id = $1', [p30.id]);
  });
});

describe('options: the house freezes what delivery can pay (real PostgreSQL + Redis)', () => {
  let t: TestApp;
  let admin: string;
  // A small house float, so other uses of the treasury compete with the options' payouts.
  beforeAll(async () => {
    t = await startTestApp({ optionWorker: false, flashExchange: { feeRate: '0.002', quoteTtlSeconds: 15, float: { USDT: '100' } } });
    admin = await adminToken(t, ADMIN.email, ADMIN.password);
  });
  afterAll(() => t.close());
  afterEach(async () => expect((await t.app.get(TrialBalanceService).compute()).ok).toBe(true));

  const tick = tickRecorder(() => t, BTC_MARKET);

  const treasury = async () => {
    const [b] = await t.ds.query(
      `SELECT available::text, frozen::text FROM balances WHERE owner_type = 'system' AND account_type = 'treasury' AND currency_id = 3`,
    );
    return { available: moneyString(b.available), frozen: moneyString(b.frozen) };
  };
  const post = (token: string, path: string, body: Record<string, unknown>) =>
    t.http().post(`/api/${path}`).set('Authorization', token).type('form').send(body);
  const fundTreasury = (amount: string, reason: string) =>
    t.http().post('/api/admin/treasury/fund').set('Authorization', admin).type('form').send({ currency_id: USDT, amount, reason });
  /** A market long of 10 lots at 10× (its P/L is the move ÷ 60 from 60,000), stop loss 50,000. */
  const openLong = async (token: string, takeProfit: string) =>
    (
      await post(token, 'lever/submit', {
        symbol: 'BTC/USDT',
        type: 'market',
        multiple: 10,
        side: 'long',
        lots: '10',
        take_profit: takeProfit,
        stop_loss: '50000',
      })
    ).body.data;
  async function trader(to: 'option' | 'lever', usdt: string) {
    const u = await registerByEmail(t);
    await setFundPassword(t, u);
    await verifyBasic(t, u, admin);
    await deposit(t, u.user.id, USDT, usdt);
    expect((await post(u.token, 'wallet/change', { from: 'coin', to, currency_id: USDT, amount: usdt })).body.code).toBe(1);
    return u;
  }

  it('a contract profit cannot spend an option stake: the close is kept at its price (2417, no money moves), every delivery pays, and the close settles at that price once the house is funded', async () => {
    await tick('60000');
    const [p30] = (await t.http().get('/api/microtrade/seconds')).body.data;
    const a = await trader('option', '100');
    const b = await trader('option', '100');
    const c = await trader('lever', '1000');
    await tick('60000'); // fresh again after making the traders (a tick stays fresh 5 s; a busy machine takes longer)
    // Stake 100 at 20 %: 120 frozen; stake 50: 60 frozen. Available 100 + 150 − 180 = 70.
    expect((await post(a.token, 'microtrade/submit', { symbol: 'BTC/USDT', direction: 'up', period_id: p30.id, quantity: '100' })).body.code).toBe(1);
    expect((await post(b.token, 'microtrade/submit', { symbol: 'BTC/USDT', direction: 'down', period_id: p30.id, quantity: '50' })).body.code).toBe(1);
    expect(await treasury()).toEqual({ available: '70', frozen: '180' });
    // A win the house's own funds could not cover is refused at purchase.
    const d = await trader('option', '500');
    // The same price again, fresh: making the traders may take longer than a tick stays fresh (5 s) on a slow machine.
    await tick('60000');
    expect((await post(d.token, 'microtrade/submit', { symbol: 'BTC/USDT', direction: 'up', period_id: p30.id, quantity: '400' })).body.code).toBe(2403);

    const pos = await openLong(c.token, '90000');
    const closeTick = await tick('69000'); // +150 for the long: more than the treasury's 70 available (its fee went to `fees`)
    const entries = (await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n;
    const refused = await post(c.token, 'lever/close', { id: pos.id });
    expect(refused.body).toMatchObject({
      code: 2417,
      message: 'The house cannot pay this profit right now. Your close at 69000 is kept and is paid at that price as soon as the house can',
    });
    // No money moved; the close is kept on the position at the user's tick.
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM ledger_entries'))[0].n).toBe(entries);
    expect(await t.ds.query('SELECT status, trigger_tick_id::text, trigger_reason FROM lever_positions WHERE id = $1', [pos.id])).toEqual([
      { status: 'holding', trigger_tick_id: closeTick, trigger_reason: 'user' },
    ]);
    expect(await treasury()).toEqual({ available: '70', frozen: '180' });
    // Shown as closing at that price, valued there, whatever the price does meanwhile.
    await tick('50000'); // the stop loss's level, and past it: the kept close is not replaced
    const shown = (await post(c.token, 'lever/deal', { symbol: 'BTC/USDT' })).body.data.positions;
    expect(shown).toMatchObject([
      { id: pos.id, status: 'holding', closing: { reason: 'user', price: '69000', tick_id: closeTick }, pnl: '150', current_price: '69000' },
    ]);
    await t.app.get(LeverWatchService).watch();
    expect((await t.ds.query('SELECT status FROM lever_positions WHERE id = $1', [pos.id]))[0].status).toBe('holding');

    // Delivery on 69,000: A (up) is paid 120, B (down) nothing; the reserves are released.
    const [{ at }] = await t.ds.query('SELECT MAX(deliver_at) AS at FROM option_orders');
    const due = new Date(at).getTime();
    await tick('69000', new Date(due + 100));
    await t.app.get(OptionDeliveryService).deliverDue(new Date(due + 2000));
    const rows = await t.ds.query('SELECT user_id, status, payout::text FROM option_orders ORDER BY id');
    expect(rows.map((r: { status: string; payout: string }) => [r.status, moneyString(r.payout)])).toEqual([
      ['delivered', '120'],
      ['delivered', '0'],
    ]);
    expect(await treasury()).toEqual({ available: '130', frozen: '0' });
    // 130 is still short of 150: asking again answers the same kept price.
    expect((await post(c.token, 'lever/close', { id: pos.id })).body).toMatchObject({ code: 2417, message: expect.stringContaining('at 69000') });
    // Funded from outside (50: 30 stays for the next test), asking again pays the close at the user's price (the watcher's next run would too).
    expect((await fundTreasury('50', 'contract payout')).body.code).toBe(1);
    expect((await post(c.token, 'lever/close', { id: pos.id })).body).toMatchObject({
      code: 1,
      data: { status: 'closed', close_price: '69000', close_tick_id: closeTick, close_reason: 'user', pnl: '150', closing: null },
    });
    const [closed] = await t.ds.query('SELECT status, close_price::text, close_tick_id::text, close_reason, pnl::text FROM lever_positions WHERE id = $1', [
      pos.id,
    ]);
    expect({ ...closed, close_price: moneyString(closed.close_price), pnl: moneyString(closed.pnl) }).toEqual({
      status: 'closed',
      close_price: '69000',
      close_tick_id: closeTick,
      close_reason: 'user',
      pnl: '150',
    });
    expect(await treasury()).toEqual({ available: '30', frozen: '0' });
  });

  it('two purchases racing for the last of the house: one is bought, the other hears 2403 (not "insufficient balance"), and nothing of it stays', async () => {
    await tick('60000');
    const [p30] = (await t.http().get('/api/microtrade/seconds')).body.data;
    const [a, b] = [await trader('option', '100'), await trader('option', '100')];
    await tick('60000'); // fresh again after making the traders
    // 30 available: each win of 20 fits alone, not both (100 in, 120 frozen each).
    const answers = await Promise.all(
      [a, b].map((u) => post(u.token, 'microtrade/submit', { symbol: 'BTC/USDT', direction: 'up', period_id: p30.id, quantity: '100' })),
    );
    expect(answers.map((r) => r.body.code).sort()).toEqual([1, 2403]);
    expect(await treasury()).toEqual({ available: '10', frozen: '120' });
    const refused = [a, b][answers.findIndex((r) => r.body.code === 2403)];
    expect((await t.ds.query('SELECT COUNT(*)::int AS n FROM option_orders WHERE user_id = $1', [refused.user.id]))[0].n).toBe(0);
  });

  it('operators see the treasury and fund it from outside, recorded with the reason; a retried client id funds once', async () => {
    const get = async () => (await t.http().get('/api/admin/treasury').set('Authorization', admin)).body;
    const fund = (body: Record<string, string | number>) => t.http().post('/api/admin/treasury/fund').set('Authorization', admin).type('form').send(body);
    const before = (await get()).data.find((b: { symbol: string }) => b.symbol === 'USDT');
    expect((await fund({ currency_id: USDT, amount: '500' })).body).toMatchObject({ code: 1000, message: 'A reason is required' });
    expect((await fund({ currency_id: USDT, amount: '-5', reason: 'top-up' })).body.code).toBe(1000);
    expect((await get()).data.find((b: { symbol: string }) => b.symbol === 'USDT')).toEqual(before);
    const [first, again] = [
      await fund({ currency_id: USDT, amount: '500', reason: 'house float top-up', client_id: 'tf-1' }),
      await fund({ currency_id: USDT, amount: '500', reason: 'house float top-up', client_id: 'tf-1' }),
    ];
    expect(first.body.data).toMatchObject({ funding_id: 'tf-1', duplicate: false });
    expect(again.body.data).toMatchObject({ funding_id: 'tf-1', duplicate: true });
    expect(again.body.data.treasury.find((b: { symbol: string }) => b.symbol === 'USDT')).toEqual({
      ...before,
      available: moneyString(money(before.available).plus(500)),
    });
    expect(await t.ds.query(`SELECT code, account_type FROM ledger_entries WHERE ref_type = 'treasury' AND ref_id = 'tf-1' ORDER BY account_type`)).toEqual([
      { code: 900, account_type: 'external' },
      { code: 900, account_type: 'treasury' },
    ]);
    const [event] = await t.ds.query(`SELECT metadata->>'actor' AS actor, metadata->>'reason' AS reason FROM events WHERE command_id = 'treasury-fund:tf-1'`);
    expect(event).toEqual({ actor: expect.stringMatching(/^admin:/), reason: 'house float top-up' });
    // The same client id for another funding (another amount or coin) is refused, not taken for the first's retry
    // (regression: it answered duplicate and funded nothing).
    for (const other of [{ amount: '50000' }, { currency_id: 1 }])
      expect((await fund({ currency_id: USDT, amount: '500', reason: 'next top-up', client_id: 'tf-1', ...other })).body).toMatchObject({
        code: 1000,
        type: 'error',
      });
    expect((await get()).data.find((b: { symbol: string }) => b.symbol === 'USDT').available).toBe(moneyString(money(before.available).plus(500)));
    // A user token is refused.
    expect(
      (
        await t
          .http()
          .get('/api/admin/treasury')
          .set('Authorization', (await registerByEmail(t)).token)
      ).body.code,
    ).toBe(401);
  });

  it('a take profit the house cannot pay when it fires settles at that tick once funded; a later stop loss does not replace it (regression: the watcher moved on and the stop loss settled)', async () => {
    await tick('60000');
    const c = await trader('lever', '1000');
    const watch = () => t.app.get(LeverWatchService).watch();
    // 10 lots long: the P/L is the move ÷ 60. A take profit worth 60 more than the treasury has.
    const short = money((await treasury()).available).plus(60);
    const takeProfit = moneyString(short.times(60).plus(60000));
    const pos = await openLong(c.token, takeProfit);
    expect(pos.status).toBe('holding');
    await watch(); // the watcher's cursor starts here
    const fired = await tick(takeProfit);
    await watch();
    const row = async () =>
      (
        await t.ds.query(
          'SELECT status, trigger_tick_id::text, trigger_reason, close_reason, close_tick_id::text, pnl::text FROM lever_positions WHERE id = $1',
          [pos.id],
        )
      )[0];
    expect(await row()).toMatchObject({ status: 'holding', trigger_tick_id: fired, trigger_reason: 'take_profit' });
    const later = await tick('49000'); // the stop loss's level: not a second trigger
    await watch();
    expect((await row()).status).toBe('holding');
    // Nor does a close evaluated on another tick (an overlapping watcher run) replace it, nor new levels.
    const [held] = await t.ds.getRepository(LeverPosition).find({ where: { id: pos.id } });
    expect(await t.app.get(LeverService).closeAt(held, { id: later, price: '49000', ts: new Date() }, 'stop_loss')).toBeUndefined();
    expect((await post(c.token, 'lever/tpsl', { id: pos.id, take_profit: '99000', stop_loss: '40000' })).body.code).toBe(2414);
    expect((await post(c.token, 'lever/close', { id: pos.id })).body.code).toBe(2417); // the user's close settles the fired trigger too: still short
    expect((await fundTreasury('1000', 'top-up')).body.code).toBe(1);
    await watch();
    expect(await row()).toMatchObject({ status: 'closed', close_reason: 'take_profit', close_tick_id: fired });
    expect(moneyString((await row()).pnl)).toBe(moneyString(short));
  });
});
